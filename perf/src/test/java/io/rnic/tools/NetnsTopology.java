package io.rnic.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Two network namespaces joined by a veth pair, with IPv4 and IPv6 addresses, unique names, and an optional
 * {@code tc netem} on both ends; {@link #close} deletes it all. The test topology of deploy/topology.sh, made from
 * a test. Needs root.
 */
public final class NetnsTopology implements AutoCloseable
{
    public final String nsA;
    public final String nsB;
    public final String ifA;
    public final String ifB;
    public final String ip4A;
    final String ip4B;
    public final String ip6A;
    final String ip6B;
    /** With a middle hop: the namespace between A and B, and its two interfaces (towards A, towards B). */
    final String nsHop;
    final String hopA;
    final String hopB;

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
        final String id = Long.toString(ProcessHandle.current().pid() % 10_000, 36) +
            Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36), 36);
        nsA = "rte" + id + "a";
        nsB = "rte" + id + "b";
        ifA = "rte" + id + "0";
        ifB = "rte" + id + "1";
        final int subnet = 100 + ThreadLocalRandom.current().nextInt(100);
        ip4A = "10." + subnet + ".0.1";
        ip4B = "10." + subnet + ".0.2";
        ip6A = "fd00:" + subnet + "::1";
        ip6B = "fd00:" + subnet + "::2";
        nsHop = middleHop ? "rte" + id + "h" : null;
        hopA = middleHop ? "rte" + id + "x" : null;
        hopB = middleHop ? "rte" + id + "y" : null;
        try
        {
            run("ip", "netns", "add", nsA);
            run("ip", "netns", "add", nsB);
            if (middleHop)
            {
                run("ip", "netns", "add", nsHop);
                run("ip", "link", "add", ifA, "mtu", String.valueOf(mtu), "type", "veth", "peer", "name", hopA, "mtu",
                    String.valueOf(mtu));
                run("ip", "link", "add", ifB, "mtu", String.valueOf(mtu), "type", "veth", "peer", "name", hopB, "mtu",
                    String.valueOf(mtu));
                run("ip", "link", "set", hopA, "netns", nsHop);
                run("ip", "link", "set", hopB, "netns", nsHop);
                run("ip", "-n", nsHop, "link", "set", hopA, "up");
                run("ip", "-n", nsHop, "link", "set", hopB, "up");
                hopRules(0, 0);
            }
            else
            {
                run("ip", "link", "add", ifA, "mtu", String.valueOf(mtu), "type", "veth", "peer", "name", ifB, "mtu",
                    String.valueOf(mtu));
            }
            run("ip", "link", "set", ifA, "netns", nsA);
            run("ip", "link", "set", ifB, "netns", nsB);
            setUp(nsA, ifA, ip4A, ip6A);
            setUp(nsB, ifB, ip4B, ip6B);
        }
        catch (final IOException | RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    private static void setUp(final String ns, final String iface, final String ip4, final String ip6)
        throws IOException, InterruptedException
    {
        run("ip", "-n", ns, "link", "set", "lo", "up");
        run("ip", "-n", ns, "addr", "add", ip4 + "/24", "dev", iface);
        run("ip", "-n", ns, "addr", "add", ip6 + "/64", "dev", iface, "nodad");
        run("ip", "-n", ns, "link", "set", iface, "up");
    }

    /**
     * Impairs both directions at the middle hop: RoCEv2 frames dropped and duplicated at random (nftables), and with
     * {@code tc netem} on the hop's interfaces, where the kernel has it, also delayed and reordered.
     *
     * @return what was applied, for messages.
     */
    public String impair(final double lossPercent, final double reorderPercent, final double duplicatePercent)
        throws IOException, InterruptedException
    {
        if (nsHop == null)
        {
            throw new IllegalStateException("impairment needs the topology with a middle hop");
        }
        final String netem = String.format("delay 50us reorder %s%% 50%% loss %s%% duplicate %s%%",
            fmt(reorderPercent), fmt(lossPercent), fmt(duplicatePercent));
        try
        {
            for (final String iface : new String[]{ hopA, hopB })
            {
                final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", nsHop, "tc", "qdisc",
                    "replace", "dev", iface, "root", "netem"));
                command.addAll(List.of(netem.split(" ")));
                run(command.toArray(String[]::new));
            }
            return "tc netem " + netem + " at the middle hop";
        }
        catch (final IOException ex)
        {
            if (!ex.getMessage().contains("qdisc kind is unknown") && !ex.getMessage().contains("No such file"))
            {
                throw ex;
            }
        }
        hopRules(lossPercent, duplicatePercent);
        return "nftables at the middle hop: loss " + fmt(lossPercent) + "%, duplicate " + fmt(duplicatePercent) +
            "% (this kernel has no sch_netem: no delay, no reordering)";
    }

    /**
     * A congested bottleneck at the middle hop, as a switch port with ECN: the hop becomes a bridge whose two ports
     * leave through {@code tc tbf} at {@code rateMbit} with a queue of {@code queueBytes} (tail drop), and whose
     * ECN-capable (ECT(0)) RoCEv2 IPv4 frames get marked CE once they arrive faster than {@code markPercent} of the
     * bottleneck for longer than a burst of {@code markBurstFrames} frames: a phantom queue drained a little slower
     * than the link, which marks before the real queue fills (HULL's idea; this kernel has no RED or other marking
     * qdisc). The marker is iptables' hashlimit, a real token bucket (nftables' limit keeps a bucket of one second
     * of its rate, so it marks nothing before a whole second of excess), reached through br_netfilter.
     *
     * @param frameBytes the size of the data frames, to turn the marking rate into frames per second.
     * @return what was applied, for messages.
     */
    public String congest(final int rateMbit, final int queueBytes, final int markPercent, final int markBurstFrames,
        final int frameBytes) throws IOException, InterruptedException
    {
        if (nsHop == null)
        {
            throw new IllegalStateException("a bottleneck needs the topology with a middle hop");
        }
        run("ip", "netns", "exec", nsHop, "nft", "delete", "table", "netdev", "rnic_hop");
        run("ip", "-n", nsHop, "link", "add", "br0", "type", "bridge");
        run("ip", "-n", nsHop, "link", "set", hopA, "master", "br0");
        run("ip", "-n", nsHop, "link", "set", hopB, "master", "br0");
        run("ip", "-n", nsHop, "link", "set", "br0", "up");
        // a stock kernel builds br_netfilter as a module that creating a bridge does not load (here it is built in)
        commandWorks("modprobe", "br_netfilter");
        run("ip", "netns", "exec", nsHop, "sysctl", "-qw", "net.bridge.bridge-nf-call-iptables=1");
        for (final String iface : new String[]{ hopA, hopB })
        {
            run("ip", "netns", "exec", nsHop, "tc", "qdisc", "replace", "dev", iface, "root", "tbf", "rate",
                rateMbit + "mbit", "burst", "32kb", "limit", String.valueOf(queueBytes));
        }
        final long markFramesPerSec = (long)rateMbit * 1_000_000 / 8 * markPercent / 100 / frameBytes;
        run("ip", "netns", "exec", nsHop, "iptables", "-t", "mangle", "-A", "FORWARD", "-p", "udp", "--dport", "4791",
            "-m", "ecn", "--ecn-ip-ect", "2", "-m", "hashlimit", "--hashlimit-above", markFramesPerSec + "/sec",
            "--hashlimit-burst", String.valueOf(markBurstFrames), "--hashlimit-mode", "dstip", "--hashlimit-name",
            "rnic", "-j", "TOS", "--set-tos", "0x03/0x03");
        return "tbf " + rateMbit + " Mbit/s with a " + queueBytes / 1000 + " KB queue at the middle hop, ECN CE " +
            "marking above " + markPercent + "% of it (" + markFramesPerSec + " frames/s) beyond " + markBurstFrames +
            " frames";
    }

    /** Frames the hop's bottleneck dropped (both directions) and frames it marked CE, as the kernel counts them. */
    public long[] bottleneckCounters() throws IOException, InterruptedException
    {
        long dropped = 0;
        for (final String iface : new String[]{ hopA, hopB })
        {
            final String stats = output("ip", "netns", "exec", nsHop, "tc", "-s", "qdisc", "show", "dev", iface);
            final java.util.regex.Matcher m = java.util.regex.Pattern.compile("dropped (\\d+)").matcher(stats);
            if (m.find())
            {
                dropped += Long.parseLong(m.group(1));
            }
        }
        long marked = 0;
        final String rules = output("ip", "netns", "exec", nsHop, "iptables", "-t", "mangle", "-L", "FORWARD", "-v",
            "-x", "-n");
        for (final String line : rules.split("\n"))
        {
            if (line.contains("TOS"))
            {
                marked += Long.parseLong(line.trim().split("\\s+")[0]);
            }
        }
        return new long[]{ dropped, marked };
    }

    public static boolean hasIptables()
    {
        return commandWorks("iptables", "--version");
    }

    private static String output(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }

    /** The hop forwards every frame to the other side, dropping and duplicating RoCEv2 frames at random. */
    private void hopRules(final double lossPercent, final double duplicatePercent)
        throws IOException, InterruptedException
    {
        final StringBuilder rules = new StringBuilder("flush ruleset\ntable netdev rnic_hop {\n");
        for (final String[] direction : new String[][]{ { hopA, hopB }, { hopB, hopA } })
        {
            rules.append("  chain from_").append(direction[0]).append(" {\n")
                .append("    type filter hook ingress device \"").append(direction[0]).append("\" priority 0;\n");
            if (lossPercent > 0)
            {
                rules.append("    meta l4proto udp udp dport 4791 numgen random mod 10000 < ")
                    .append((int)(lossPercent * 100)).append(" counter drop\n");
            }
            if (duplicatePercent > 0)
            {
                rules.append("    meta l4proto udp udp dport 4791 numgen random mod 10000 < ")
                    .append((int)(duplicatePercent * 100)).append(" counter dup to \"").append(direction[1])
                    .append("\"\n");
            }
            rules.append("    fwd to \"").append(direction[1]).append("\"\n  }\n");
        }
        rules.append("}\n");
        final Process nft = new ProcessBuilder("ip", "netns", "exec", nsHop, "nft", "-f", "-")
            .redirectErrorStream(true).start();
        nft.getOutputStream().write(rules.toString().getBytes(StandardCharsets.US_ASCII));
        nft.getOutputStream().close();
        final String output = new String(nft.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!nft.waitFor(30, TimeUnit.SECONDS) || nft.exitValue() != 0)
        {
            throw new IOException("nft failed: " + output + "\n" + rules);
        }
    }

    private static String fmt(final double percent)
    {
        return percent == Math.rint(percent) ? String.valueOf((long)percent) : String.valueOf(percent);
    }

    public static boolean hasNft()
    {
        return commandWorks("nft", "--version");
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

    public static boolean available()
    {
        try
        {
            final Process id = new ProcessBuilder("id", "-u").start();
            final String uid = new String(id.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return "0".equals(uid) && new ProcessBuilder("ip", "-V").start().waitFor() == 0;
        }
        catch (final IOException | InterruptedException ex)
        {
            return false;
        }
    }

    static void run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }

    @Override
    public void close()
    {
        try
        {
            // a veth left in the root namespace by a set-up that failed half way
            new ProcessBuilder("ip", "link", "del", ifA).redirectErrorStream(true).start().waitFor(30, TimeUnit.SECONDS);
        }
        catch (final IOException ex)
        {
            // not there
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        for (final String ns : new String[]{ nsA, nsB, nsHop })
        {
            if (ns == null)
            {
                continue;
            }
            try
            {
                // deleting a namespace deletes the veth end inside it, and with it the pair
                new ProcessBuilder("ip", "netns", "del", ns).redirectErrorStream(true).start()
                    .waitFor(30, TimeUnit.SECONDS);
            }
            catch (final IOException ex)
            {
                // already gone
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
