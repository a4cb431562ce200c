/**
 * DPDK 22.11 bound through the FFM API (issue [4/6]): EAL, mempools, ethdev, and a tiny C shim for the
 * {@code static inline} burst and mbuf functions. Empty until that issue lands.
 */
package io.rnic.dpdkbindings;
