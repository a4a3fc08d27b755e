/* SPDX-License-Identifier: MIT */
/* net/core/counter.h: the stack's counters, one set per core (struct net_stack),
 * and the table that names them.
 *
 * Every drop has its own counter; names follow DPDK/VPP usage and are
 * stable: tools and tests match on them. The kernel prints `show stats` (text
 * and JSON) by walking the table, summing a counter over cores by its
 * offset, without knowing any of them:
 *
 *     const struct net_counter_desc *d;
 *     for (size_t i = 0; (d = net_counter_at(i)) != NULL; i++)
 *         print(d->layer, d->name, net_counter_get(&stack->ctr, d));
 *
 * To add one: a line in NET_COUNTERS; struct and table follow. */
#ifndef NET_COUNTER_H
#define NET_COUNTER_H

#include <stddef.h>
#include <stdint.h>

/* TCP's (net/tcp/), X(layer, field, "name") like the rest. */
#define TCP_COUNTERS(X)                                                       \
    X(tcp, rx, "tcp-rx")                        /* segments in */             \
    X(tcp, tx, "tcp-tx")                        /* segments out */            \
    X(tcp, tso, "tcp-tso")                      /* TSO frames out (in tx) */  \
    X(tcp, runt, "tcp-runt")                    /* under 20 bytes */          \
    X(tcp, bad_offset, "tcp-bad-offset")        /* offset < 5 or past end */  \
    X(tcp, bad_checksum, "tcp-bad-checksum")                                  \
    X(tcp, bad_flags, "tcp-bad-flags")          /* SYN+FIN, SYN+RST, none */  \
    X(tcp, bad_option, "tcp-bad-option")        /* option length wrong */     \
    X(tcp, bad_port, "tcp-bad-port")            /* port 0 */                  \
    X(tcp, land, "tcp-land")                    /* from itself (LAND) */      \
    X(tcp, bcast, "tcp-bcast")                  /* to a broadcast address */  \
    X(tcp, no_port, "tcp-no-port")              /* nobody there: RST */       \
    X(tcp, listen_drop, "tcp-listen-drop")      /* to a listener, no SYN */   \
    X(tcp, rst_tx, "tcp-rst-tx")                                              \
    X(tcp, rst_rx, "tcp-rst-rx")                /* resets that closed one */  \
    X(tcp, rst_ignored, "tcp-rst-ignored")      /* out of window */           \
    X(tcp, challenge_ack, "tcp-challenge-ack")  /* RFC 5961 */                \
    X(tcp, challenge_limited, "tcp-challenge-limited")                        \
    X(tcp, oow_ack_limited, "tcp-oow-ack-limited")                            \
    X(tcp, out_of_window, "tcp-out-of-window")  /* ACKed and dropped */       \
    X(tcp, paws_drop, "tcp-paws-drop")          /* RFC 7323 section 5 */      \
    X(tcp, no_ack, "tcp-no-ack")                /* ACK bit off */             \
    X(tcp, ack_unsent, "tcp-ack-unsent")        /* acks what was not sent */  \
    X(tcp, ack_old, "tcp-ack-old")              /* RFC 5961 5.2 */            \
    X(tcp, bad_synack, "tcp-bad-synack")        /* SYN-SENT, bad ACK: RST */  \
    X(tcp, dup_ack, "tcp-dup-ack")                                            \
    X(tcp, rcv_dup, "tcp-rcv-dup")              /* data we had already */     \
    X(tcp, rcv_after_fin, "tcp-rcv-after-fin")  /* data past the peer's FIN */ \
    X(tcp, ooo_queued, "tcp-ooo-queued")                                      \
    X(tcp, ooo_drop, "tcp-ooo-drop")            /* out-of-order queue full */ \
    X(tcp, retransmit, "tcp-retransmit")        /* segments sent again */     \
    X(tcp, rto, "tcp-rto")                      /* retransmission timeouts */ \
    X(tcp, fast_recovery, "tcp-fast-recovery")  /* recoveries entered */      \
    X(tcp, tlp, "tcp-tlp")                      /* tail loss probes sent */   \
    X(tcp, tlp_loss, "tcp-tlp-loss")            /* losses a probe repaired */ \
    X(tcp, lost_retransmit, "tcp-lost-retransmit") /* lost again (RACK) */    \
    X(tcp, dsack_rx, "tcp-dsack-rx")            /* the peer had it twice */   \
    X(tcp, undo, "tcp-undo")                    /* a reduction undone: no loss after all */ \
    X(tcp, window_probe, "tcp-window-probe")                                  \
    X(tcp, keepalive_tx, "tcp-keepalive-tx")                                  \
    X(tcp, timeout, "tcp-timeout")              /* gave up: reset */          \
    X(tcp, idle_timeout, "tcp-idle-timeout")    /* of those: idle too long */ \
    X(tcp, send_timeout, "tcp-send-timeout")    /* of those: a window shut too long */ \
    X(tcp, accepted, "tcp-accepted")                                          \
    X(tcp, connected, "tcp-connected")                                        \
    X(tcp, conn_full, "tcp-conn-full")          /* no connection free */      \
    X(tcp, syncookie_tx, "tcp-syncookie-tx")    /* backlog full */            \
    X(tcp, syncookie_ok, "tcp-syncookie-ok")                                  \
    X(tcp, syncookie_bad, "tcp-syncookie-bad")                                \
    X(tcp, tw_recycled, "tcp-tw-recycled")      /* TIME-WAIT reused */        \
    X(tcp, half_open_evicted, "tcp-half-open-evicted") /* for a cookie */     \
    X(tcp, no_buf, "tcp-no-buf")                /* no buffer for a segment */ \
    X(tcp, tx_wait, "tcp-tx-wait")              /* held data back: ring full */ \
    X(tcp, buf_wait, "tcp-buf-wait")            /* no room: pool at its reserve */ \
    X(tcp, pmtu_lowered, "tcp-pmtu-lowered")    /* ICMP: segments made smaller */ \
    X(tcp, pmtu_blackhole, "tcp-pmtu-blackhole") /* no ICMP, timeouts: the same */ \
    X(tcp, pmtu_probe, "tcp-pmtu-probe")        /* after a black hole: the size tried again */ \
    X(tcp, rcv_window_grown, "tcp-rcv-window-grown") /* autotuning */          \
    X(tcp, snd_buffer_grown, "tcp-snd-buffer-grown") /* autotuning */          \
    X(tcp, snd_queue_returned, "tcp-snd-queue-returned") /* a large queue back to the core: all acked, or closed */ \
    X(tcp, icmp_ignored, "tcp-icmp-ignored")    /* soft, stale or not ours */

/* X(layer, field, "name") */
#define NET_COUNTERS(X)                                                       \
    X(eth, rx, "eth-rx")                        /* frames in */               \
    X(eth, runt, "eth-runt")                    /* shorter than its headers */ \
    X(eth, unknown_type, "eth-unknown-type")    /* not IPv4 or ARP */         \
    X(eth, vlan_drop, "eth-vlan-drop")          /* VLAN not the port's */     \
    X(eth, not_for_us, "eth-not-for-us")        /* unicast to another MAC */  \
    X(eth, bad_src, "eth-bad-src")              /* multicast source MAC */    \
    X(eth, no_iface, "eth-no-iface")            /* port not added */          \
    X(eth, jumbo_drop, "eth-jumbo-drop")        /* over several buffers, for the stack: it takes one */ \
    X(eth, tx, "eth-tx")                        /* frames handed to a port */ \
    X(eth, tx_drop, "eth-tx-drop")              /* no room, even after a flush */ \
    X(eth, tx_busy, "eth-tx-busy")              /* ring full: kept for the next */ \
    X(eth, tx_no_room, "eth-tx-no-room")        /* no headroom for header */  \
    X(arp, rx_request, "arp-rx-request")                                      \
    X(arp, rx_reply, "arp-rx-reply")                                          \
    X(arp, learned_remote, "arp-learned-remote") /* from another core's input */ \
    X(arp, tx_request, "arp-tx-request")                                      \
    X(arp, tx_reply, "arp-tx-reply")                                          \
    X(arp, truncated, "arp-truncated")                                        \
    X(arp, bad_htype, "arp-bad-htype")                                        \
    X(arp, bad_ptype, "arp-bad-ptype")                                        \
    X(arp, bad_hlen, "arp-bad-hlen")                                          \
    X(arp, bad_plen, "arp-bad-plen")                                          \
    X(arp, bad_op, "arp-bad-op")                                              \
    X(arp, bad_sender, "arp-bad-sender")        /* bcast/mcast/martian */     \
    X(arp, addr_conflict, "arp-addr-conflict")  /* sender claims our IP */    \
    X(arp, not_for_us, "arp-not-for-us")        /* target not our IP */       \
    X(arp, queue_full, "arp-queue-full")        /* waiting queue full */      \
    X(arp, cache_full, "arp-cache-full")        /* no entry to evict */       \
    X(arp, timeout_drop, "arp-timeout-drop")    /* queued, never resolved */  \
    X(arp, no_buf, "arp-no-buf")                /* no buffer for a request */ \
    X(ip4, rx, "ip4-rx")                                                      \
    X(ip4, local, "ip4-local")                  /* delivered to us */         \
    X(ip4, too_short, "ip4-too-short")          /* under 20 bytes */          \
    X(ip4, bad_version, "ip4-bad-version")                                    \
    X(ip4, bad_ihl, "ip4-bad-ihl")              /* IHL under 5 */             \
    X(ip4, bad_checksum, "ip4-bad-checksum")                                  \
    X(ip4, bad_length, "ip4-bad-length")        /* total under header */      \
    X(ip4, truncated, "ip4-truncated")          /* beyond the frame */        \
    X(ip4, bad_option, "ip4-bad-option")                                      \
    X(ip4, bad_source, "ip4-bad-source")        /* RFC 1812 5.3.7 */          \
    X(ip4, bad_dest, "ip4-bad-dest")            /* 0/8, 127/8, 240/4 */       \
    X(ip4, mcast, "ip4-mcast")                  /* no groups joined */        \
    X(ip4, l2_bcast, "ip4-l2-bcast")            /* RFC 1812 5.3.4 */          \
    X(ip4, not_for_us, "ip4-not-for-us")        /* no forwarding hook */      \
    X(ip4, unknown_proto, "ip4-unknown-proto")                                \
    X(ip4, frag_too_big, "ip4-frag-too-big")    /* ends past 65535 */         \
    X(ip4, frag_bad_len, "ip4-frag-bad-len")    /* empty / not 8n */          \
    X(ip4, frag_tiny, "ip4-frag-tiny")          /* offset 1, RFC 1858 */      \
    X(ip4, reasm_ok, "ip4-reasm-ok")                                          \
    X(ip4, reasm_overlap, "ip4-reasm-overlap")                                \
    X(ip4, reasm_duplicate, "ip4-reasm-duplicate") /* an exact copy: it alone dropped */ \
    X(ip4, reasm_inconsistent, "ip4-reasm-inconsistent")                      \
    X(ip4, reasm_too_many, "ip4-reasm-too-many") /* fragments/datagram */     \
    X(ip4, reasm_evicted, "ip4-reasm-evicted")  /* table or memory full */    \
    X(ip4, reasm_timeout, "ip4-reasm-timeout")                                \
    X(ip4, tx, "ip4-tx")                        /* datagrams sent */          \
    X(ip4, frag_tx, "ip4-frag-tx")              /* fragments made */          \
    X(ip4, out_no_route, "ip4-out-no-route")                                  \
    X(ip4, out_to_self, "ip4-out-to-self")                                    \
    X(ip4, out_too_big, "ip4-out-too-big")      /* DF or over 65535 */        \
    X(ip4, out_no_buf, "ip4-out-no-buf")                                      \
    X(icmp4, rx, "icmp4-rx")                                                  \
    X(icmp4, runt, "icmp4-runt")                /* under 8 bytes */           \
    X(icmp4, bad_checksum, "icmp4-bad-checksum")                              \
    X(icmp4, rx_echo, "icmp4-rx-echo")                                        \
    X(icmp4, bcast_echo, "icmp4-bcast-echo")    /* ignored */                 \
    X(icmp4, rx_error, "icmp4-rx-error")        /* errors to us, consumed */  \
    X(icmp4, rx_other, "icmp4-rx-other")        /* other queries, consumed */ \
    X(icmp4, tx_echo_reply, "icmp4-tx-echo-reply")                            \
    X(icmp4, tx_unreach, "icmp4-tx-unreach")                                  \
    X(icmp4, tx_time_exceeded, "icmp4-tx-time-exceeded")                      \
    X(icmp4, tx_param_problem, "icmp4-tx-param-problem")                      \
    X(icmp4, error_suppressed, "icmp4-error-suppressed") /* RFC 1812 4.3.2.7 */ \
    X(icmp4, rate_limited, "icmp4-rate-limited")                              \
    X(ip6, rx, "ip6-rx")                                                      \
    X(ip6, disabled, "ip6-disabled")            /* on a port without IPv6 */  \
    X(ip6, runt, "ip6-runt")                    /* under 40 bytes */          \
    X(ip6, bad_version, "ip6-bad-version")                                    \
    X(ip6, bad_length, "ip6-bad-length")        /* payload past the frame */  \
    X(ip6, bad_src, "ip6-bad-src")              /* multicast, loopback, ours */ \
    X(ip6, bad_dst, "ip6-bad-dst")              /* unspecified, loopback */   \
    X(ip6, not_for_us, "ip6-not-for-us")        /* multicast we are not in */ \
    X(ip6, local, "ip6-local")                                                \
    X(ip6, unknown_next, "ip6-unknown-next")    /* for us, not ICMPv6 */      \
    X(ip6, frag_bad, "ip6-frag-bad")            /* not 8n, or past 65535 */   \
    X(ip6, reasm_ok, "ip6-reasm-ok")                                          \
    X(ip6, reasm_overlap, "ip6-reasm-overlap")                                \
    X(ip6, reasm_duplicate, "ip6-reasm-duplicate") /* an exact copy: it alone dropped */ \
    X(ip6, reasm_inconsistent, "ip6-reasm-inconsistent")                      \
    X(ip6, reasm_too_many, "ip6-reasm-too-many") /* fragments/datagram */     \
    X(ip6, reasm_evicted, "ip6-reasm-evicted")  /* table or memory full */    \
    X(ip6, reasm_timeout, "ip6-reasm-timeout")                                \
    X(ip6, reasm_too_big, "ip6-reasm-too-big")  /* over a buffer: TCP, ICMPv6 but echo */ \
    X(ip6, frag_tx, "ip6-frag-tx")              /* fragments made */          \
    X(ip6, out_no_buf, "ip6-out-no-buf")                                      \
    X(ip6, forwarded, "ip6-forwarded")                                        \
    X(ip6, no_route, "ip6-no-route")                                          \
    X(ip6, hop_limit, "ip6-hop-limit")          /* expired in transit */      \
    X(ip6, too_big, "ip6-too-big")              /* over the next hop's MTU */ \
    X(ip6, no_forward, "ip6-no-forward")        /* transit, no routing here */ \
    X(ip6, tx, "ip6-tx")                                                      \
    X(icmp6, rx, "icmp6-rx")                                                  \
    X(icmp6, runt, "icmp6-runt")                                              \
    X(icmp6, bad_checksum, "icmp6-bad-checksum")                              \
    X(icmp6, rx_echo, "icmp6-rx-echo")                                        \
    X(icmp6, rx_other, "icmp6-rx-other")        /* consumed */                \
    X(icmp6, tx_echo_reply, "icmp6-tx-echo-reply")                            \
    X(icmp6, tx_error, "icmp6-tx-error")                                      \
    X(icmp6, error_suppressed, "icmp6-error-suppressed") /* RFC 4443 2.4(e) */ \
    X(icmp6, rate_limited, "icmp6-rate-limited")                              \
    X(nd6, rx_ns, "nd6-rx-ns")                                                \
    X(nd6, rx_na, "nd6-rx-na")                                                \
    X(nd6, bad, "nd6-bad")                      /* hop limit, length, options */ \
    X(nd6, tx_ns, "nd6-tx-ns")                                                \
    X(nd6, tx_na, "nd6-tx-na")                                                \
    X(nd6, rx_rs, "nd6-rx-rs")                  /* router solicitations */    \
    X(nd6, tx_ra, "nd6-tx-ra")                  /* router advertisements */   \
    X(nd6, queue_full, "nd6-queue-full")                                      \
    X(nd6, cache_full, "nd6-cache-full")                                      \
    X(nd6, failed, "nd6-failed")                /* no answer: queue dropped */ \
    X(nd6, probe_failed, "nd6-probe-failed")    /* a stale neighbour stopped answering */ \
    X(nd6, learned_remote, "nd6-learned-remote") /* from another core's input */ \
    X(udp, rx, "udp-rx")                                                      \
    X(udp, runt, "udp-runt")                    /* under 8 bytes */           \
    X(udp, bad_length, "udp-bad-length")        /* under 8 or past payload */ \
    X(udp, bad_checksum, "udp-bad-checksum")                                  \
    X(udp, no_port, "udp-no-port")                                            \
    X(udp, tx, "udp-tx")                                                      \
    X(udp, echo_refused, "udp-echo-refused")    /* from port 0 or an echo port: no answer */ \
    X(udp, tx_too_big, "udp-tx-too-big")                                      \
    X(acl, in_deny, "acl-in-deny")              /* forwarded, denied at the input port */ \
    X(acl, out_deny, "acl-out-deny")            /* forwarded, denied at the output port */ \
    X(acl, control_deny, "acl-control-deny")    /* for us, denied by `acl control` */ \
    TCP_COUNTERS(X)

struct net_counters {
#define NET_COUNTER_FIELD(layer, field, name) uint64_t layer##_##field;
    NET_COUNTERS(NET_COUNTER_FIELD)
#undef NET_COUNTER_FIELD
};

struct net_counter_desc {
    const char *layer;          /* "eth", "arp", "ip4", "icmp4", "udp", "tcp" */
    const char *name;           /* "ip4-bad-checksum" */
    size_t offset;              /* of its uint64_t in struct net_counters */
};

/* The i-th counter, NULL past the last. */
const struct net_counter_desc *net_counter_at(size_t i);

/* The counter called name, NULL if none. */
const struct net_counter_desc *net_counter_find(const char *name);

static inline uint64_t net_counter_get(const struct net_counters *c, const struct net_counter_desc *d)
{
    return *(const uint64_t *)(const void *)((const char *)c + d->offset);
}

#endif
