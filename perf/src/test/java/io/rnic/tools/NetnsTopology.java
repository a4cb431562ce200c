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
final class NetnsTopology implements AutoCloseable
{
    final String nsA;
    final String nsB;
    final String ifA;
    final String ifB;
    final String ip4A;
    final String ip4B;
    final String ip6A;
    final String ip6B;
    /** With a middle hop: the namespace between A and B, and its two interfaces (towards A, towards B). */
    final String nsHop;
    final String hopA;
    final String hopB;

    NetnsTopology(final int mtu) throws IOException, InterruptedException
    {
        this(mtu, false);
    }

    /**
     * @param middleHop put a third namespace between A and B that forwards every frame (nftables {@code fwd}) and
     *                  can drop or duplicate RoCEv2 frames there: the kernel does not run its netdev egress hook for
     *                  AF_PACKET transmissions, and its ingress hook after packet sockets, so impairing frames on the
     *                  endpoints' own interfaces would not touch them.
     */
    NetnsTopology(final int mtu, final boolean middleHop) throws IOException, InterruptedException
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
    String impair(final double lossPercent, final double reorderPercent, final double duplicatePercent)
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
     * A congested bottleneck at the middle hop: each direction leaves through {@code tc tbf} at {@code rateMbit}
     * (a short queue that drops the excess), and RoCEv2 IPv4 packets that are ECN-capable (ECT(0)) get marked CE
     * by nftables when their direction's traffic exceeds {@code markAboveBytesPerSec} — a switch marking before its
     * queue overflows. (This kernel has no RED or other marking qdisc.)
     *
     * @return what was applied, for messages.
     */
    String congest(final int rateMbit, final long markAboveBytesPerSec) throws IOException, InterruptedException
    {
        if (nsHop == null)
        {
            throw new IllegalStateException("a bottleneck needs the topology with a middle hop");
        }
        for (final String iface : new String[]{ hopA, hopB })
        {
            run("ip", "netns", "exec", nsHop, "tc", "qdisc", "replace", "dev", iface, "root", "tbf", "rate",
                rateMbit + "mbit", "burst", "32kb", "latency", "2ms");
        }
        final String mark = "    meta protocol ip udp dport 4791 ip ecn ect0 limit rate over " +
            markAboveBytesPerSec + " bytes/second ip ecn set ce counter\n";
        hopRules(0, 0, mark);
        return "tbf " + rateMbit + " Mbit/s at the middle hop, ECN CE marking above " + markAboveBytesPerSec / 1000 +
            " kB/s";
    }

    /** The hop forwards every frame to the other side, dropping and duplicating RoCEv2 frames at random. */
    private void hopRules(final double lossPercent, final double duplicatePercent)
        throws IOException, InterruptedException
    {
        hopRules(lossPercent, duplicatePercent, "");
    }

    private void hopRules(final double lossPercent, final double duplicatePercent, final String extraRules)
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
            rules.append(extraRules);
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

    static boolean hasNft()
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

    static boolean available()
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
