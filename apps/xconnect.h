/* apps/xconnect.h: `xconnect ethX ethY`, an L2 cross-connect. */
#ifndef USERLAND_XCONNECT_H
#define USERLAND_XCONNECT_H

void xconnect_init(void); /* registers the configuration statement */

#endif
