package io.rnic.pcap;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link PcapWriter#write} allocates nothing once warm, flushes to the file included (measured, not timed). */
class PcapWriterAllocationTest
{
    private static final int WRITES = 100_000;

    @TempDir
    Path dir;

    @Test
    void shouldWriteWithoutAllocatingAfterWarmUp() throws Exception
    {
        final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(2048));
        for (int i = 0; i < frame.capacity(); i++)
        {
            frame.putByte(i, (byte)i);
        }
        try (PcapWriter writer = new PcapWriter(dir.resolve("alloc.pcap")))
        {
            final Runnable work = () ->
            {
                for (int i = 0; i < WRITES; i++)
                {
                    writer.write(frame, i & 63, 60 + (i & 1023), 1_700_000_000_000_000_000L + i);
                }
            };
            work.run(); // warm up so the JIT has compiled the path
            work.run();

            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
            final long tid = Thread.currentThread().threadId();
            final long before = threads.getThreadAllocatedBytes(tid);
            work.run();
            final long allocated = threads.getThreadAllocatedBytes(tid) - before;

            assertEquals(0, allocated / WRITES, WRITES + " writes allocated " + allocated + " bytes");
            System.out.println("PcapWriter: " + WRITES + " writes (" + writer.framesWritten() + " in all) allocated " +
                allocated + " bytes");
        }
    }
}
