/**
 * Busy-polling run-to-completion engine agents and packet ports (AF_PACKET, DPDK, in-memory), issue [3/6].
 * Empty until that issue lands.
 */
package io.rnic.datapath;
