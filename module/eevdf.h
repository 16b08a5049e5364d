/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_EEVDF_H
#define SCHEDLAB_EEVDF_H

#include "schedlab.h"

extern struct sl_feature eevdf_feature;

#endif /* SCHEDLAB_EEVDF_H */
