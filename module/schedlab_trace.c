// SPDX-License-Identifier: GPL-2.0
/* Instantiates schedlab's trace events (schedlab_trace.h). */
#define CREATE_TRACE_POINTS
#include "schedlab_trace.h"
