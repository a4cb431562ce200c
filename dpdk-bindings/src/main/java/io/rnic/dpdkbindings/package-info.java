/**
 * DPDK 22.11 bound through the FFM API: {@link io.rnic.dpdkbindings.DpdkBindings} declares every function, struct
 * layout and constant in one place (jextract's shape); {@link io.rnic.dpdkbindings.Eal},
 * {@link io.rnic.dpdkbindings.PacketMempool} and {@link io.rnic.dpdkbindings.EthDevice} wrap them with clear errors;
 * {@link io.rnic.dpdkbindings.BurstFunctions} is the fast path, through a tiny C shim for DPDK's {@code static inline}
 * burst functions or through the exported {@code rte_eth_fp_ops} table.
 */
package io.rnic.dpdkbindings;
