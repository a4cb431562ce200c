package io.rnic.tools.perftest;

import io.rnic.tools.NetnsTopology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * RC over a veth that loses 2% of the frames, reorders and duplicates some ({@code tc netem} on both ends, or
 * nftables drop/dup where the kernel has no netem): every byte still arrives ({@code --verify} on both sides) and the
 * requester's counters show the recovery. Needs root and tc or nft.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VethLossyLinkTest
{
    private static final String CONDITIONS = "2% loss, 10% reordering, 1% duplication";
    private static final Pattern RETRANSMITTED = Pattern.compile("retransmitted_pkts\\s+([\\d,]+)");

    private NetnsTopology topology;
    private String impairment;
    private VethEndToEndTest runner;

    @BeforeAll
    void createTopology() throws Exception
    {
        assumeTrue(NetnsTopology.available() && NetnsTopology.hasNft(), "needs root, iproute2 and nftables");
        topology = new NetnsTopology(1500, true);
        impairment = topology.impair(2, 10, 1);
        runner = VethEndToEndTest.over(topology);
    }

    @AfterAll
    void deleteTopology()
    {
        if (topology != null)
        {
            topology.close();
        }
    }

    @ParameterizedTest(name = "{0} under " + CONDITIONS)
    @ValueSource(strings = { "write-bw", "read-bw", "send-bw", "write-lat", "atomic-bw" })
    void shouldRecoverEveryByteAndShowTheRetransmissions(final String tool) throws Exception
    {
        final List<String> arguments = new ArrayList<>(switch (tool)
        {
            case "write-bw", "read-bw" -> List.of("-s", "8000", "-n", "1500", "-q", "2", "--warmup", "0");
            case "send-bw" -> List.of("-s", "3000", "-n", "1500", "--imm", "--warmup", "0");
            case "atomic-bw" -> List.of("-n", "1500", "--warmup", "0");
            default -> List.of("-s", "3000", "-n", "400", "--warmup", "0");
        });
        final String[] outputs = runner.run(tool, arguments, "1", topology.ip4A);
        final long retransmitted = retransmitted(outputs[0]) + retransmitted(outputs[1]);
        assertTrue(retransmitted > 0, "the counters show the recovery (" + impairment + "):\n" + outputs[0]);
    }

    private static long retransmitted(final String output)
    {
        final Matcher matcher = RETRANSMITTED.matcher(output);
        return matcher.find() ? Long.parseLong(matcher.group(1).replace(",", "")) : 0;
    }
}
