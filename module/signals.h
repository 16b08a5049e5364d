/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_SIGNALS_H
#define SCHEDLAB_SIGNALS_H

#include "schedlab.h"

extern struct sl_feature signals_feature;

#endif
