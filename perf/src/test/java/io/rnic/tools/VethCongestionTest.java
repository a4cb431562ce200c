package io.rnic.tools;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * DCQCN against a real congested hop: two namespaces joined through a middle hop whose egress is a 200 Mbit/s
 * {@code tbf} and which marks ECN-capable RoCEv2 packets CE above 20 MB/s (nftables). RDMA WRITEs with
 * {@code --cc dcqcn} (the paper's parameters, 10 Gb/s line rate): the hop's CE marks reach the receiver, which
 * answers with CNPs that the sender's reaction point takes, every byte verified. The same run without congestion
 * control, and both rates, are printed for comparison.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VethCongestionTest
{
    private static final Pattern BANDWIDTH = Pattern.compile("^ *65536 +\\d+ +([\\d.]+) ", Pattern.MULTILINE);
    private static final Pattern CNPS = Pattern.compile("CNPs sent: (\\d+) +CNPs received: (\\d+)");
    private static final Pattern MARKED = Pattern.compile("ECN-marked \\(CE\\) packets received: (\\d+)");
    private static final Pattern RETRANSMITTED = Pattern.compile("retransmitted_pkts\\s+([\\d,]+)");

    private NetnsTopology topology;
    private String bottleneck;
    private VethEndToEndTest runner;

    @BeforeAll
    void createTopology() throws Exception
    {
        assumeTrue(NetnsTopology.available() && NetnsTopology.hasNft(), "needs root, iproute2 and nftables");
        topology = new NetnsTopology(1500, true);
        bottleneck = topology.congest(200, 20_000_000);
        runner = new VethEndToEndTest();
        final java.lang.reflect.Field field = VethEndToEndTest.class.getDeclaredField("topology");
        field.setAccessible(true);
        field.set(runner, topology);
    }

    @AfterAll
    void deleteTopology()
    {
        if (topology != null)
        {
            topology.close();
        }
    }

    @Test
    void shouldMarkCongestionAndAnswerItWithCnpsOnARealPath() throws Exception
    {
        final List<String> common = List.of("-s", "65536", "-n", "1500", "--warmup", "0");
        final String[] withCc = runner.run("write-bw", concat(common, List.of("--cc", "dcqcn", "--cc-param", "g=1/256", "--cc-param",
            "byteCounterBytes=10000000", "--cc-param", "rateIncreasePeriodNs=55000", "--cc-param",
            "fastRecoveryThreshold=5", "--cc-param", "additiveIncreaseBitsPerSec=40000000", "--cc-param",
            "hyperIncreaseBitsPerSec=200000000", "--cc-param", "lineRateBitsPerSec=10000000000")), "1", topology.ip4A);
        final String[] without = runner.run("write-bw", common, "1", topology.ip4A);
        final double bandwidth = number(BANDWIDTH, withCc[0], 1);
        final long cnpsReceived = (long)number(CNPS, withCc[0], 2);
        final long cnpsSent = (long)number(CNPS, withCc[1], 1);
        final long marked = (long)number(MARKED, withCc[1], 1);
        final double bandwidthWithout = number(BANDWIDTH, without[0], 1);
        final String summary = String.format("%s: with DCQCN %.1f MB/s, CE-marked packets %d, CNPs %d sent / %d " +
            "received, retransmitted %s; without: %.1f MB/s, retransmitted %s", bottleneck, bandwidth, marked,
            cnpsSent, cnpsReceived, retransmitted(withCc[0]), bandwidthWithout, retransmitted(without[0]));
        System.out.println("veth congestion: " + summary);
        assertTrue(marked > 0, "the hop marked packets CE and the receiver counted them: " + summary);
        assertTrue(cnpsSent > 0 && cnpsReceived > 0, "CNPs flowed: " + summary);
        // Not asserted: that the rate settles near the bottleneck. It does not yet (BENCHMARKS.md): tbf's drops
        // trigger go-back-N bursts that dominate, with DCQCN as without it.
        assertTrue(bandwidth > 0 && bandwidthWithout > 0, summary);
    }

    private static List<String> concat(final List<String> a, final List<String> b)
    {
        final java.util.ArrayList<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static double number(final Pattern pattern, final String text, final int group)
    {
        final Matcher matcher = pattern.matcher(text);
        assertTrue(matcher.find(), pattern + " in:\n" + text);
        return Double.parseDouble(matcher.group(group).replace(",", ""));
    }

    private static String retransmitted(final String output)
    {
        final Matcher matcher = RETRANSMITTED.matcher(output);
        return matcher.find() ? matcher.group(1) : "0";
    }
}
