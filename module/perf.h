/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_PERF_H
#define SCHEDLAB_PERF_H

#include "schedlab.h"

extern struct sl_feature perf_feature;

#endif
