/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_BLOCKED_ON_H
#define SCHEDLAB_BLOCKED_ON_H

#include "schedlab.h"

extern struct sl_feature blocked_on_feature;

#endif
