package io.rnic.tools;

import io.rnic.testing.TopologyScript;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Two network namespaces joined by a veth pair, with IPv4 and IPv6 addresses and unique names, optionally through a
 * middle hop that can impair or congest the path; {@link #close} deletes it all. Made by deploy/topology.sh (through
 * {@link TopologyScript}), the topology the demo and the benchmarks use. Needs root.
 */
public final class NetnsTopology implements AutoCloseable
{
    public final String nsA;
    public final String nsB;
    public final String ifA;
    public final String ifB;
    public final String ip4A;
    public final String ip4B;
    public final String ip6A;
    final String ip6B;
    private final String name;
    private final boolean middleHop;

    public NetnsTopology(final int mtu) throws IOException, InterruptedException
    {
        this(mtu, false);
    }

    /**
     * @param middleHop put a third namespace between A and B that forwards every frame (nftables {@code fwd}) and
     *                  can drop or duplicate RoCEv2 frames there: the kernel does not run its netdev egress hook for
     *                  AF_PACKET transmissions, and its ingress hook after packet sockets, so impairing frames on the
     *                  endpoints' own interfaces would not touch them.
     */
    public NetnsTopology(final int mtu, final boolean middleHop) throws IOException, InterruptedException
    {
        name = "rte" + Long.toString(ProcessHandle.current().pid() % 10_000, 36) +
            Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36), 36);
        this.middleHop = middleHop;
        final int subnet = 100 + ThreadLocalRandom.current().nextInt(100);
        final Map<String, String> topology;
        try
        {
            topology = middleHop ?
                TopologyScript.up(name, "--mtu", String.valueOf(mtu), "--v4", "10." + subnet + ".0", "--v6",
                    "fd00:" + subnet + "::", "--hop", "nft") :
                TopologyScript.up(name, "--mtu", String.valueOf(mtu), "--v4", "10." + subnet + ".0", "--v6",
                    "fd00:" + subnet + "::");
        }
        catch (final IOException | RuntimeException ex)
        {
            close();
            throw ex;
        }
        nsA = topology.get("RNIC_NS_A");
        nsB = topology.get("RNIC_NS_B");
        ifA = topology.get("RNIC_IF_A");
        ifB = topology.get("RNIC_IF_B");
        ip4A = topology.get("RNIC_IP4_A");
        ip4B = topology.get("RNIC_IP4_B");
        ip6A = topology.get("RNIC_IP6_A");
        ip6B = topology.get("RNIC_IP6_B");
    }

    /**
     * Impairs both directions at the middle hop: with {@code tc netem} on the hop's interfaces, where the kernel has
     * it, RoCEv2 frames delayed, reordered, dropped and duplicated; otherwise dropped and duplicated at random
     * (nftables).
     *
     * @return what was applied, for messages.
     */
    public String impair(final double lossPercent, final double reorderPercent, final double duplicatePercent)
        throws IOException, InterruptedException
    {
        requireHop();
        return TopologyScript.run("impair", name, "--loss", fmt(lossPercent), "--reorder", fmt(reorderPercent),
            "--duplicate", fmt(duplicatePercent)).trim();
    }

    /**
     * A congested bottleneck at the middle hop, as a switch port with ECN (deploy/topology.sh congest): a bridge
     * whose ports leave through {@code tc tbf} at {@code rateMbit} with a queue of {@code queueBytes} (tail drop),
     * marking ECN-capable RoCEv2 IPv4 frames CE once they arrive faster than {@code markPercent} of the bottleneck
     * for longer than a burst of {@code markBurstFrames} frames: a phantom queue that marks before the real one
     * fills.
     *
     * @param frameBytes the size of the data frames, to turn the marking rate into frames per second.
     * @return what was applied, for messages.
     */
    public String congest(final int rateMbit, final int queueBytes, final int markPercent, final int markBurstFrames,
        final int frameBytes) throws IOException, InterruptedException
    {
        requireHop();
        return TopologyScript.run("congest", name, "--rate", String.valueOf(rateMbit), "--queue-bytes",
            String.valueOf(queueBytes), "--mark-pct", String.valueOf(markPercent), "--mark-burst",
            String.valueOf(markBurstFrames), "--frame-bytes", String.valueOf(frameBytes)).trim();
    }

    /** Frames the hop's bottleneck dropped (both directions) and frames it marked CE, as the kernel counts them. */
    public long[] bottleneckCounters() throws IOException, InterruptedException
    {
        final String[] counters = TopologyScript.run("counters", name).trim().split("\\s+");
        return new long[]{ Long.parseLong(counters[0]), Long.parseLong(counters[1]) };
    }

    public static boolean hasIptables()
    {
        return commandWorks("iptables", "--version");
    }

    public static boolean hasNft()
    {
        return commandWorks("nft", "--version");
    }

    public static boolean available()
    {
        return TopologyScript.available();
    }

    private void requireHop()
    {
        if (!middleHop)
        {
            throw new IllegalStateException("impairment and bottleneck need the topology with a middle hop");
        }
    }

    private static String fmt(final double percent)
    {
        return percent == Math.rint(percent) ? String.valueOf((long)percent) : String.valueOf(percent);
    }

    private static boolean commandWorks(final String... command)
    {
        try
        {
            return new ProcessBuilder(command).redirectErrorStream(true).start().waitFor() == 0;
        }
        catch (final IOException | InterruptedException ex)
        {
            return false;
        }
    }

    @Override
    public void close()
    {
        TopologyScript.down(name);
    }
}
