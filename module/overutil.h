/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_OVERUTIL_H
#define SCHEDLAB_OVERUTIL_H

#include "schedlab.h"

extern struct sl_feature overutil_feature;

#endif
