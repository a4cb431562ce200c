package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The warm-up before the measurement: iterations for the JIT, bounded in bytes, the same at both ends. */
class ToolOptionsWarmupTest
{
    private static final long MIB = 1L << 20;

    @Test
    void shouldBoundTheDefaultWarmupOfLargeMessagesByBytes()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-s", "1M", "-n", "64" });
        assertEquals(64, options.warmup, "5 000 iterations of 1 MiB were 5 GiB before the 64 measured");
        assertTrue(options.warmup * options.size <= ToolOptions.WARMUP_BYTES_MAX);
        assertEquals(1024, ToolOptions.parse(ToolKind.WRITE_BW, new String[0]).warmup, "the default 64 KiB");
        assertEquals(64, ToolOptions.parse(ToolKind.WRITE_LAT, new String[]{ "-s", "1M" }).warmup);
        assertEquals(7, ToolOptions.parse(ToolKind.SEND_BW, new String[]{ "-s", "10000000" }).warmup,
            "rounded up: at least the bound's bytes");
    }

    @Test
    void shouldKeepTheIterationsOfSmallMessages()
    {
        assertEquals(5000, ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-s", "2" }).warmup);
        assertEquals(5000, ToolOptions.parse(ToolKind.ATOMIC_BW, new String[0]).warmup);
        assertEquals(1000, ToolOptions.parse(ToolKind.SEND_LAT, new String[0]).warmup);
        assertEquals(0, ToolOptions.parse(ToolKind.RC_PINGPONG, new String[0]).warmup, "rdma-core's have none");
    }

    @Test
    void shouldBoundEverySizeOfASweep()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-a", "-n", "50" });
        assertEquals(5000, options.warmupFor(2));
        assertEquals(4096, options.warmupFor(16 * 1024));
        assertEquals(8, options.warmupFor(ToolOptions.ALL_SIZES_MAX_BYTES));
        long bytes = 0;
        for (int size = 2; size <= ToolOptions.ALL_SIZES_MAX_BYTES; size <<= 1)
        {
            bytes += options.warmupFor(size) * size;
        }
        assertTrue(bytes < 1024 * MIB, "a sweep warms up with " + bytes + " bytes (84 GB unbounded)");
    }

    @Test
    void shouldRunAGivenWarmupAtEverySize()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-a", "--warmup", "300" });
        assertEquals(300, options.warmup);
        assertEquals(300, options.warmupFor(2));
        assertEquals(300, options.warmupFor(ToolOptions.ALL_SIZES_MAX_BYTES));
        assertEquals(5000, ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-s", "1M", "--warmup=5000" }).warmup);
        assertEquals(0, ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-s", "1M", "-D", "4" }).warmupFor(2),
            "-D warms up for a time instead");
    }

    @Test
    void shouldKeepTheDefaultWarmupAMultipleOfThePostList()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-s", "1M", "-l", "3",
            "-n", "300" });
        assertEquals(66, options.warmup, "64 rounded up to a multiple of -l 3, which -l requires of it");
    }

    @Test
    void shouldShowTheDefaultInTheHelp()
    {
        final String help = ToolOptions.help(ToolKind.WRITE_BW);
        assertTrue(help.contains("--warmup N") && help.contains("default 5000") && help.contains("64 MiB"), help);
    }
}
