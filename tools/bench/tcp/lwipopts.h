/* SPDX-License-Identifier: MIT */
/* tools/bench/tcp/lwipopts.h: lwIP 2.1.3 configured the way a
 * performance-minded embedder would for this benchmark: NO_SYS=1 (raw API
 * in one loop, like hayate), memory pools sized for the windows, TCP
 * checksums left to the NIC (as hayate's are: the in-memory link offers
 * both offloads), asserts and statistics off, the same 256 KiB windows and
 * 1460-byte MSS as hayate, and the same options on the wire: window
 * scaling, SACK and timestamps (RFC 7323), which hayate and Linux put on
 * every segment (without them lwIP's frames were 12 bytes shorter and it
 * skipped the option's work, which is not the same work). */
#ifndef BENCH_LWIPOPTS_H
#define BENCH_LWIPOPTS_H

#define NO_SYS 1
#define SYS_LIGHTWEIGHT_PROT 0
#define LWIP_SOCKET 0
#define LWIP_NETCONN 0
#define LWIP_RAW 0
#define LWIP_UDP 0
#define LWIP_DHCP 0
#define LWIP_AUTOIP 0
#define LWIP_IGMP 0
#define LWIP_DNS 0
#define LWIP_IPV4 1
#define LWIP_IPV6 0
#define LWIP_ICMP 1
#define LWIP_ARP 1
#define ETHARP_SUPPORT_STATIC_ENTRIES 1
#define LWIP_STATS 0
#define LWIP_NETIF_LOOPBACK 0
#define LWIP_HAVE_LOOPIF 0

#define MEM_ALIGNMENT 8
#define MEM_LIBC_MALLOC 0
#define MEMP_MEM_MALLOC 0
#define MEM_SIZE (8 * 1024 * 1024)
#define MEMP_NUM_PBUF 4096
#define MEMP_NUM_TCP_PCB 128
#define MEMP_NUM_TCP_PCB_LISTEN 4
#define MEMP_NUM_TCP_SEG 4096
#define MEMP_NUM_SYS_TIMEOUT 16
#define PBUF_POOL_SIZE 2048
#define PBUF_POOL_BUFSIZE 1600

#define TCP_MSS 1460
#define LWIP_WND_SCALE 1
#define TCP_RCV_SCALE 3
#define TCP_WND (256 * 1024)
#define TCP_SND_BUF (256 * 1024)
#define TCP_SND_QUEUELEN 4096
#define TCP_SNDLOWAT 32768 /* a u16_t, at most 0xffff - 4 MSS */
#define TCP_OVERSIZE TCP_MSS
#define TCP_QUEUE_OOSEQ 1
#define LWIP_TCP_SACK_OUT 1
#define LWIP_TCP_TIMESTAMPS 1
#define LWIP_TCP_KEEPALIVE 0
#define LWIP_CALLBACK_API 1
#define TCP_LISTEN_BACKLOG 0

#define CHECKSUM_GEN_TCP 0
#define CHECKSUM_CHECK_TCP 0
#define CHECKSUM_GEN_IP 1
#define CHECKSUM_CHECK_IP 1
#define LWIP_CHECKSUM_ON_COPY 0

#define LWIP_DEBUG 0
#define LWIP_NOASSERT 1

#endif
