/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_DLPARAMS_H
#define SCHEDLAB_DLPARAMS_H

#include "schedlab.h"

extern struct sl_feature dlparams_feature;

#endif
