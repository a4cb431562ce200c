package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.verbs.QpType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flags users bring from perftest and rdma-core: each letter and long name read as perftest 4.5's
 * {@code perftest_parameters.c} and rdma-core's {@code rc_pingpong.c} read it, refused in perftest's words where
 * perftest refuses it.
 */
class PerftestFlagsTest
{
    @Test
    void shouldTakeTheConnectionTypeEachVerbAllows()
    {
        assertEquals(QpType.UC, parse(ToolKind.WRITE_BW, "-c", "UC").flags.qpType(ToolKind.WRITE_BW));
        assertEquals(QpType.UC, parse(ToolKind.SEND_LAT, "--connection=UC").flags.qpType(ToolKind.SEND_LAT));
        assertEquals(QpType.UD, parse(ToolKind.SEND_BW, "-c", "UD").flags.qpType(ToolKind.SEND_BW));
        assertEquals(QpType.RC, parse(ToolKind.READ_BW, "-c", "RC").flags.qpType(ToolKind.READ_BW));
        assertEquals(QpType.RC, parse(ToolKind.READ_BW).flags.qpType(ToolKind.READ_BW));
        assertRefused(" UC connection not possible in READ/ATOMIC verbs", ToolKind.READ_LAT, "-c", "UC");
        assertRefused(" UC connection not possible in READ/ATOMIC verbs", ToolKind.ATOMIC_BW, "-c", "UC");
        assertRefused(" UD connection only possible in SEND verb", ToolKind.WRITE_BW, "-c", "UD");
        assertRefused(" Invalid Connection type. Please choose from {RC,UC,UD,XRC,DC,SRD}", ToolKind.WRITE_BW,
            "-c", "XY");
        assertRefused("-R connects RC QPs: -c UC is not supported with it", ToolKind.WRITE_BW, "-c", "UC", "-R",
            "10.0.0.1");
    }

    @Test
    void shouldCarryTrafficClassAndServiceLevel()
    {
        final ToolOptions options = parse(ToolKind.WRITE_BW, "--tclass", "96", "-S", "3");
        assertEquals(96, options.flags.trafficClass);
        assertEquals(3, options.flags.serviceLevel);
        assertEquals(5, parse(ToolKind.SEND_LAT, "--sl=5").flags.serviceLevel);
        assertRefused("-S 8 out of range 0..7", ToolKind.WRITE_BW, "-S", "8");
        assertRefused("--tclass 256 out of range 0..255", ToolKind.WRITE_BW, "--tclass", "256");
        assertEquals(184, parse(ToolKind.WRITE_BW, "-R", "-T", "184", "10.0.0.1").flags.typeOfService);
        assertRefused("--tclass and -S do not apply with -R: the RDMA CM sets the QP's address (-T sets its type of " +
            "service)", ToolKind.WRITE_BW, "-R", "-S", "1", "10.0.0.1");
        final UsageException tos = assertThrows(UsageException.class, () -> parse(ToolKind.WRITE_BW, "--tos", "184"));
        assertTrue(tos.getMessage().startsWith("-T/--tos sets the RDMA CM's type of service: available only with -R"),
            tos.getMessage());
    }

    @Test
    void shouldAcceptInlineSizeWhereThePayloadIsSent()
    {
        assertEquals(220, parse(ToolKind.WRITE_LAT, "-I", "220").flags.inlineSize);
        assertEquals(0, parse(ToolKind.SEND_BW, "--inline_size=0").flags.inlineSize);
        // perftest: " Inline feature not available on READ/Atomic verbs"; the option table gives -I to WRITE and SEND
        final String inline = ": it applies to write-lat, write-bw, send-lat, send-bw, rping";
        assertRefused("-I does not apply to read-bw" + inline, ToolKind.READ_BW, "-I", "64");
        assertRefused("-I does not apply to atomic-lat" + inline, ToolKind.ATOMIC_LAT, "-I", "8");
        assertRefused("-I 1025 out of range 0..1024", ToolKind.SEND_BW, "-I", "1025");
    }

    @Test
    void shouldTakeEventsWherePerftestDoes()
    {
        assertTrue(parse(ToolKind.SEND_BW, "-e").flags.events);
        assertTrue(parse(ToolKind.READ_LAT, "--events").flags.events);
        // perftest: " Events feature not available on WRITE verb"
        final String events = ": it applies to read-lat, read-bw, send-lat, send-bw, atomic-lat, atomic-bw, " +
            "rc-pingpong, ud-pingpong, uc-pingpong, srq-pingpong";
        assertRefused("-e does not apply to write-bw" + events, ToolKind.WRITE_BW, "-e");
        assertRefused("-e does not apply to write-lat" + events, ToolKind.WRITE_LAT, "-e");
    }

    @Test
    void shouldTakeCpuFreqAsANoOp()
    {
        final ToolOptions options = parse(ToolKind.WRITE_BW, "-F", "-s", "4096");
        assertEquals(4096, options.size);
        parse(ToolKind.SEND_LAT, "--CPU-freq");
    }

    @Test
    void shouldModeratePostListsAsPerftest()
    {
        assertEquals(16, parse(ToolKind.WRITE_BW, "-Q", "16").flags.cqMod);
        final ToolOptions list = parse(ToolKind.WRITE_BW, "-l", "8", "-n", "800", "--warmup", "80");
        assertEquals(8, list.flags.postList);
        assertEquals(8, list.flags.cqMod, "perftest: CQ moderation will be the size of the post list");
        assertEquals(4, parse(ToolKind.WRITE_BW, "-l", "8", "-Q", "4", "-n", "800", "--warmup", "80").flags.cqMod);
        assertRefused("Post list size must be a multiple of CQ moderation", ToolKind.WRITE_BW, "-l", "8", "-Q", "3",
            "-n", "800", "--warmup", "80");
        assertRefused("Number of iterations must be a multiple of post list size (-n 801, --warmup 80, -l 8)",
            ToolKind.WRITE_BW, "-l", "8", "-n", "801", "--warmup", "80");
        assertRefused(" --verify is incompatible with --post_list > 1", ToolKind.SEND_BW, "-l", "8", "--verify");
        assertTrue(assertThrows(UsageException.class, () -> parse(ToolKind.WRITE_LAT, "-l", "2")).getMessage()
            .startsWith("-l does not apply to write-lat: it applies to write-bw, read-bw, send-bw, atomic-bw"));
        assertRefused("-Q 1025 out of range 1..1024", ToolKind.WRITE_BW, "-Q", "1025");
    }

    @Test
    void shouldTakePerftestsRateUnitsForTheSoftwareLimiter()
    {
        assertEquals(2e9, parse(ToolKind.WRITE_BW, "--rate_limit", "2").flags.rateLimitBitsPerSec);
        assertEquals(100.0 * 8 * (1 << 20), parse(ToolKind.READ_BW, "--rate_limit=100", "--rate_units=M")
            .flags.rateLimitBitsPerSec);
        assertEquals(1000.0 * 8 * 4096, parse(ToolKind.SEND_BW, "--rate_limit", "1000", "--rate_units", "p",
            "-s", "4096", "--rate_limit_type", "SW").flags.rateLimitBitsPerSec);
        assertRefused("--rate_units takes g|M|p, not 'k'", ToolKind.WRITE_BW, "--rate_units", "k");
        assertRefused("--rate_limit does not apply to atomic-bw: it applies to write-bw, read-bw, send-bw",
            ToolKind.ATOMIC_BW, "--rate_limit", "1");
        assertRefused("--rate_limit 0: must be above 0", ToolKind.WRITE_BW, "--rate_limit", "0");
        final UsageException hardware = assertThrows(UsageException.class,
            () -> parse(ToolKind.WRITE_BW, "--rate_limit", "1", "--rate_limit_type", "HW"));
        assertTrue(hardware.getMessage().contains("no hardware rate limiter"), hardware.getMessage());
        assertEquals(2500.0, parse(ToolKind.WRITE_BW, "-w", "2500").flags.limitBwMbps);
        assertEquals(0.5, parse(ToolKind.READ_BW, "--limit_bw=0.5").flags.limitBwMbps);
        assertRefused("-w does not apply to read-lat: it applies to write-bw, read-bw, send-bw, atomic-bw",
            ToolKind.READ_LAT, "-w", "1");
    }

    @Test
    void shouldTakeBidirectionalWhereItRuns()
    {
        // perftest: " Bidirectional is only available in BW test"; a SEND test's is not supported yet
        final String bidirectional = ": it applies to write-bw, read-bw, atomic-bw";
        assertRefused("-b does not apply to send-lat" + bidirectional, ToolKind.SEND_LAT, "-b");
        assertTrue(parse(ToolKind.WRITE_BW, "-b").flags.bidirectional);
        assertTrue(parse(ToolKind.READ_BW, "--bidirectional").flags.bidirectional);
        assertRefused("-b does not apply to send-bw" + bidirectional, ToolKind.SEND_BW, "-b");
        assertRefused("-b does not run with --verify: each side checks only what its peer wrote when it alone sends",
            ToolKind.WRITE_BW, "-b", "--verify");
    }

    @Test
    void shouldReadThePingpongsLettersAsRdmaCoreDoes()
    {
        final ToolOptions options = parse(ToolKind.RC_PINGPONG, "-c", "-e", "-l", "4", "-o", "-P");
        assertTrue(options.verify, "--chk checks the data received");
        assertTrue(options.flags.events);
        assertEquals(4, options.flags.serviceLevel);
        assertTrue(options.flags.odp && options.flags.prefetch);
        assertEquals(QpType.UD, parse(ToolKind.UD_PINGPONG, "--chk").flags.qpType(ToolKind.UD_PINGPONG));
        final UsageException ts = assertThrows(UsageException.class, () -> parse(ToolKind.UC_PINGPONG, "-t"));
        assertTrue(ts.getMessage().contains("completion timestamps"), ts.getMessage());
        assertRefused("-P (--prefetch) prefetches an ODP region: it needs -o", ToolKind.RC_PINGPONG, "-P");
        assertRefused("-I does not apply to rc-pingpong: it applies to write-lat, write-bw, send-lat, send-bw, rping",
            ToolKind.RC_PINGPONG, "-I", "4");
    }

    @Test
    void shouldPrintGidsAsInetNtopDoes()
    {
        assertEquals("::ffff:10.91.0.1", ToolReport.gidText(0, 0x0000_FFFF_0A5B_0001L));
        assertEquals("fd91::1", ToolReport.gidText(0xFD91_0000_0000_0000L, 1));
        assertEquals("fe80::2:ff:fe00:e01", ToolReport.gidText(0xFE80_0000_0000_0000L, 0x0002_00FF_FE00_0E01L));
        assertEquals("::", ToolReport.gidText(0, 0));
        assertEquals("::1", ToolReport.gidText(0, 1));
        assertEquals("1::", ToolReport.gidText(0x0001_0000_0000_0000L, 0));
        // one zero group stays, and of two equal runs the first is compressed
        assertEquals("1:0:2:3:4:5:6:7", ToolReport.gidText(0x0001_0000_0002_0003L, 0x0004_0005_0006_0007L));
        assertEquals("1::2:0:0:3:4", ToolReport.gidText(0x0001_0000_0000_0002L, 0x0000_0000_0003_0004L));
        assertEquals("2001:db8::1:0:0:1", ToolReport.gidText(0x2001_0DB8_0000_0000L, 0x0001_0000_0000_0001L));
    }

    @Test
    void shouldShowTheFlagsInTheToolsHelp()
    {
        final String write = ToolOptions.help(ToolKind.WRITE_BW);
        for (final String flag : new String[]{ "-c, --connection", "-I, --inline_size", "--tclass", "-T, --tos",
            "-S, --sl", "-F, --CPU-freq", "-l, --post_list", "-Q, --cq-mod", "-w, --limit_bw", "--rate_limit",
            "-b, --bidirectional" })
        {
            assertTrue(write.contains(flag), flag + " in\n" + write);
        }
        assertFalse(write.contains("-e, --events"), write);
        assertTrue(ToolOptions.help(ToolKind.SEND_LAT).contains("-e, --events"));
        final String pingpong = ToolOptions.help(ToolKind.RC_PINGPONG);
        for (final String flag : new String[]{ "-c, --chk", "-e, --events", "-l, --sl", "-o, --odp", "-P, --prefetch" })
        {
            assertTrue(pingpong.contains(flag), flag + " in\n" + pingpong);
        }
        // refused, so not offered: the engine does not timestamp completions; a SEND test's -b is not supported
        assertFalse(pingpong.contains("  -t, --ts"), pingpong);
        assertFalse(ToolOptions.help(ToolKind.SEND_BW).contains("-b, --bidirectional"));
    }

    private static ToolOptions parse(final ToolKind kind, final String... args)
    {
        return ToolOptions.parse(kind, args);
    }

    private static void assertRefused(final String message, final ToolKind kind, final String... args)
    {
        final UsageException ex = assertThrows(UsageException.class, () -> parse(kind, args));
        assertEquals(message, ex.getMessage());
    }
}
