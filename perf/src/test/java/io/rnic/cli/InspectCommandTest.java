package io.rnic.cli;

import io.rnic.pcap.PcapWriter;
import io.rnic.testing.Json;
import io.rnic.testing.SharedFiles;
import io.rnic.testing.TestVectors.Vector;
import io.rnic.testing.TestVectors;
import io.rnic.wire.FethFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.Opcode;
import io.rnic.wire.PacketBuilder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rnic inspect --json} against the independent vectors, and on real rxe captures. */
class InspectCommandTest
{
    private record Result(int status, List<String> lines, String err)
    {
    }

    private static Result rnic(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = RnicCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8).lines().toList(),
            err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldPrintTheExpectedFieldsOfEveryValidVector()
    {
        for (final String name : new String[]{ "vectors", "hw_captured" })
        {
            final List<Vector> vectors = TestVectors.load(name + ".jsonl");
            final Result result = rnic("inspect", "--json", SharedFiles.vectors(name + ".pcap").toString());
            assertEquals(0, result.status(), result.err());
            assertEquals(vectors.size(), result.lines().size());
            for (int i = 0; i < vectors.size(); i++)
            {
                final Map<String, Object> frame = Json.parseObject(result.lines().get(i));
                final Vector vector = vectors.get(i);
                assertEquals("accept", frame.get("verdict"), vector.name());
                assertEquals(null, frame.get("drop_reason"));
                assertEquals((long)(i + 1), frame.get("frame"));
                for (final Map.Entry<String, Object> expected : vector.expected().entrySet())
                {
                    assertEquals(Json.normalise(expected.getValue()), Json.normalise(frame.get(expected.getKey())),
                        vector.name() + ": " + expected.getKey());
                }
            }
        }
    }

    @Test
    void shouldDropEveryInvalidVectorWithItsReasonAndExitOne()
    {
        final List<Vector> vectors = TestVectors.invalid();
        final Result result = rnic("inspect", "--json", SharedFiles.vectors("invalid.pcap").toString());
        assertEquals(1, result.status());
        assertEquals(vectors.size(), result.lines().size());
        for (int i = 0; i < vectors.size(); i++)
        {
            final Map<String, Object> frame = Json.parseObject(result.lines().get(i));
            assertEquals("drop", frame.get("verdict"), vectors.get(i).name());
            assertEquals(TestVectors.INVALID_CASE_REASONS.get(vectors.get(i).caseName()).name(), frame.get("drop_reason"),
                vectors.get(i).name());
        }
        final Map<String, Object> badIcrc = Json.parseObject(result.lines().get(0));
        assertEquals(false, badIcrc.get("icrc_ok"));
        // the reference decoder: "bad ICRC (wire 15bae8cd, computed 15bae8cc)", both in wire byte order
        assertEquals("15bae8cd", badIcrc.get("icrc_wire_hex"));
        assertEquals("0xcce8ba15", badIcrc.get("icrc_computed"));
    }

    @Test
    void shouldAcceptEveryRoceFrameThatLinuxSoftRoceSent()
    {
        final Path pcaps = SharedFiles.sharedDir().resolve("rxe-peer/pcaps");
        int total = 0;
        for (final String name : new String[]{ "ibv_rc_pingpong", "ibv_ud_pingpong", "ib_write_bw", "ib_read_bw",
            "ib_send_bw", "ib_send_lat", "ib_read_lat", "ib_atomic_bw", "ib_write_bw_rdmacm", "rping" })
        {
            final Result result = rnic("inspect", "--roce-only", pcaps.resolve(name + ".pcap").toString());
            assertEquals(0, result.status(), name + ": " + result.lines().get(result.lines().size() - 1));
            final String summary = result.lines().get(result.lines().size() - 1);
            total += Integer.parseInt(summary.substring(0, summary.indexOf(' ')));
            assertTrue(summary.contains(" 0 dropped, 0 with a bad ICRC"), summary);
        }
        assertEquals(1494, total, "RoCEv2 frames in the rxe captures (their README says 1494)");
    }

    @Test
    void shouldPrintAReadableLinePerFrameAndASummary()
    {
        final Result result = rnic("inspect", SharedFiles.vectors("hw_captured.pcap").toString());
        assertEquals(0, result.status());
        assertTrue(result.lines().get(0).contains("CNP(0x81) qp=0x000118 psn=0 BECN"), result.lines().get(0));
        assertTrue(result.lines().get(0).contains("icrc=ok -> accept"), result.lines().get(0));
        assertTrue(result.lines().get(1).startsWith("1 frames: 1 accepted, 0 dropped"), result.lines().get(1));
    }

    @Test
    void shouldDecodeAndAcceptFlushAndAtomicWrite(@TempDir final Path dir) throws Exception
    {
        final Path pcap = dir.resolve("ibta-1.5.pcap");
        final PacketBuilder builder = new PacketBuilder();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[256]);
        try (PcapWriter writer = new PcapWriter(pcap))
        {
            final FrameSpec spec = new FrameSpec().ethernet(0x0200_0000_0B02L, 0x0200_0000_0A01L)
                .ipv4(0x0A00_0001, 0x0A00_0002).ackRequest(true);
            spec.bth(Opcode.RC_FLUSH, 0x123, 7).feth(FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_MR)
                .reth(0x1000, 0x2000, 64);
            writer.write(frame, 0, builder.build(frame, 0, spec, frame, 0, 0), 1_000);
            spec.bth(Opcode.RC_ATOMIC_WRITE, 0x123, 8).reth(0x1008, 0x2000, 8);
            writer.write(frame, 0, builder.build(frame, 0, spec, new UnsafeBuffer(new byte[8]), 0, 8), 2_000);
        }
        final Result json = rnic("inspect", "--json", pcap.toString());
        assertEquals(0, json.status(), json.err());
        final Map<String, Object> flush = Json.parseObject(json.lines().get(0));
        assertEquals("RC_FLUSH", flush.get("opcode_name"));
        assertEquals("accept", flush.get("verdict"));
        assertEquals(1L, flush.get("feth_placement_type"));
        assertEquals(1L, flush.get("feth_selectivity_level"));
        assertEquals(64L, flush.get("reth_dmalen"));
        final Map<String, Object> atomicWrite = Json.parseObject(json.lines().get(1));
        assertEquals("RC_ATOMIC_WRITE", atomicWrite.get("opcode_name"));
        assertEquals("accept", atomicWrite.get("verdict"));
        assertEquals(8L, atomicWrite.get("payload_len"));

        final Result text = rnic("inspect", pcap.toString());
        assertEquals(0, text.status());
        assertTrue(text.lines().get(0).contains("RC_FLUSH(0x1c) qp=0x000123 psn=7 A placement=1 selectivity=1"),
            text.lines().get(0));
        assertTrue(text.lines().get(1).contains("RC_ATOMIC_WRITE(0x1d)"), text.lines().get(1));
        assertTrue(text.lines().get(2).startsWith("2 frames: 2 accepted, 0 dropped"), text.lines().get(2));
    }

    @Test
    void shouldReadPcapng(@TempDir final Path dir) throws Exception
    {
        final Path pcapng = dir.resolve("vectors.pcapng");
        final Process editcap = new ProcessBuilder("editcap", "-F", "pcapng",
            SharedFiles.vectors("vectors.pcap").toString(), pcapng.toString()).redirectErrorStream(true).start();
        if (editcap.waitFor() != 0 || !Files.exists(pcapng))
        {
            org.junit.jupiter.api.Assumptions.assumeFalse(Boolean.getBoolean("rnic.require.tshark"),
                "editcap (tshark) is required but failed");
            org.junit.jupiter.api.Assumptions.abort("editcap not installed");
        }
        final Result result = rnic("inspect", "--json", pcapng.toString());
        assertEquals(0, result.status(), result.err());
        assertEquals(TestVectors.load("vectors.jsonl").size(), result.lines().size());
    }

    @Test
    void shouldExplainBadUsageAndMissingFilesWithStatusTwo()
    {
        final Result noFile = rnic("inspect");
        assertEquals(2, noFile.status());
        assertTrue(noFile.err().contains("no capture file given") && noFile.err().contains("usage: rnic inspect"),
            noFile.err());

        final Result missing = rnic("inspect", "/nonexistent/x.pcap");
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("/nonexistent/x.pcap"), missing.err());

        final Result unknown = rnic("frobnicate");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().contains("unknown command 'frobnicate'"), unknown.err());

        final Result help = rnic("help");
        assertEquals(0, help.status());
        assertTrue(String.join("\n", help.lines()).contains("inspect [--json] [--roce-only] FILE"));
        assertTrue(String.join("\n", help.lines()).contains("[-s | -c] [-v] [-V] [-d] [-P] [-a ADDR] [-I ADDR]"), String.join("\n", help.lines()));
    }
}
