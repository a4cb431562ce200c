/**
 * The datapath: what moves frames between a port and the engine, in sub-packages by job.
 * <ul>
 *     <li>{@code port}: {@code PacketPort}, the burst-oriented port interface, and the in-memory port;</li>
 *     <li>{@code afpacket} and {@code dpdk}: the AF_PACKET (PACKET_MMAP rings) and DPDK ports;</li>
 *     <li>{@code agent}: {@code EngineAgent}, the busy-polling run-to-completion duty cycle, its idle strategies,
 *     and the router that shards QPs over several agents;</li>
 *     <li>{@code neighbour}: ARP and IPv6 neighbour discovery, answered on the engine thread;</li>
 *     <li>{@code affinity}: pinning engine threads to cores ({@code sched_setaffinity} through FFM);</li>
 *     <li>{@code endpoint}: {@code Endpoint}, a running RNIC on one port (device, engine threads, neighbour
 *     resolution): the entry point of the tools and of programs embedding rnic.</li>
 * </ul>
 * This package itself holds no classes.
 */
package io.rnic.datapath;
