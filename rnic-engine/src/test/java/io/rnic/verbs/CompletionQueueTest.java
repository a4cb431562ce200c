package io.rnic.verbs;

import io.rnic.testing.SteadyStateAllocation;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompletionQueueTest
{
    private static WorkCompletion[] completions(final int n)
    {
        final WorkCompletion[] wcs = new WorkCompletion[n];
        for (int i = 0; i < n; i++)
        {
            wcs[i] = new WorkCompletion();
        }
        return wcs;
    }

    @Test
    void shouldDeliverCompletionsInOrderWithEveryField()
    {
        final CompletionQueue cq = new CompletionQueue(1, 4);
        assertTrue(cq.offer(7, WcStatus.SUCCESS, WcOpcode.RECV, 100, 0xDEAD, 3, 9,
            WorkCompletion.WITH_IMM | WorkCompletion.GRH, WorkCompletion.NETWORK_HDR_IPV4));
        assertTrue(cq.offer(8, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_WRITE, 0, 0, 3, 0, 0, 0));
        final WorkCompletion[] wcs = completions(4);
        assertEquals(2, cq.poll(wcs, 4));
        assertEquals(7, wcs[0].wrId());
        assertEquals(WcStatus.SUCCESS, wcs[0].status());
        assertEquals(WcOpcode.RECV, wcs[0].opcode());
        assertEquals(100, wcs[0].byteLength());
        assertEquals(0xDEAD, wcs[0].immediateData());
        assertEquals(9, wcs[0].sourceQp());
        assertTrue(wcs[0].hasFlag(WorkCompletion.WITH_IMM) && wcs[0].hasFlag(WorkCompletion.GRH));
        assertEquals(WorkCompletion.NETWORK_HDR_IPV4, wcs[0].networkHeaderType());
        assertEquals(WcStatus.REM_ACCESS_ERR, wcs[1].status());
        assertEquals(0, cq.poll(wcs, 4));
    }

    @Test
    void shouldRefuseACompletionWhenFullAndCountTheOverrun()
    {
        final CompletionQueue cq = new CompletionQueue(1, 3);
        assertEquals(4, cq.capacity());
        for (int i = 0; i < 4; i++)
        {
            assertTrue(cq.offer(i, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 1, 0, 0, 0));
        }
        assertFalse(cq.offer(4, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 1, 0, 0, 0));
        assertEquals(1, cq.overruns());
        final WorkCompletion[] wcs = completions(1);
        assertEquals(1, cq.poll(wcs, 1));
        assertEquals(0, wcs[0].wrId());
        assertTrue(cq.offer(4, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 1, 0, 0, 0));
    }

    @Test
    void shouldFillNullEntriesRatherThanLoseTheCompletion()
    {
        final CompletionQueue cq = new CompletionQueue(1, 4);
        assertTrue(cq.offer(11, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 1, 0, 0, 0));
        assertTrue(cq.offer(12, WcStatus.SUCCESS, WcOpcode.RDMA_READ, 64, 0, 1, 0, 0, 0));
        final WorkCompletion[] wcs = new WorkCompletion[4];
        assertEquals(2, cq.poll(wcs, 4));
        assertEquals(11, wcs[0].wrId());
        assertEquals(12, wcs[1].wrId());
        assertEquals(64, wcs[1].byteLength());
        assertNull(wcs[2], "no entry is filled beyond the completions polled");

        final WorkCompletion first = wcs[0];
        assertTrue(cq.offer(13, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 1, 0, 0, 0));
        assertEquals(1, cq.poll(wcs, 4));
        assertSame(first, wcs[0], "a filled entry is reused");
        assertEquals(13, wcs[0].wrId());
        assertEquals(0, cq.poll(wcs, 4));
    }

    @Test
    void shouldRejectSillySizes()
    {
        assertThrows(VerbsException.class, () -> new CompletionQueue(1, 0));
        assertThrows(VerbsException.class, () -> new CompletionQueue(1, 1 << 23));
    }

    @Test
    void shouldHandEachCompletionToExactlyOneOfSeveralPollingThreads() throws Exception
    {
        final int total = 2_000_000;
        final CompletionQueue cq = new CompletionQueue(1, 1024);
        final AtomicLong sum = new AtomicLong();
        final AtomicLong count = new AtomicLong();
        final Thread[] consumers = new Thread[2];
        for (int c = 0; c < consumers.length; c++)
        {
            consumers[c] = new Thread(() ->
            {
                final WorkCompletion[] wcs = completions(16);
                long localSum = 0;
                long localCount = 0;
                while (count.get() + localCount < total)
                {
                    final int n = cq.poll(wcs, 16);
                    for (int i = 0; i < n; i++)
                    {
                        localSum += wcs[i].wrId();
                        assertEquals((int)wcs[i].wrId(), wcs[i].byteLength()); // fields travel together
                    }
                    localCount += n;
                    if (n == 0)
                    {
                        count.addAndGet(localCount);
                        sum.addAndGet(localSum);
                        localCount = 0;
                        localSum = 0;
                        Thread.yield();
                    }
                }
                count.addAndGet(localCount);
                sum.addAndGet(localSum);
            });
            consumers[c].start();
        }
        for (long wrId = 1; wrId <= total; )
        {
            if (cq.offer(wrId, WcStatus.SUCCESS, WcOpcode.SEND, (int)wrId, 0, 1, 0, 0, 0))
            {
                wrId++;
            }
            else
            {
                Thread.yield();
            }
        }
        for (final Thread consumer : consumers)
        {
            consumer.join(60_000);
        }
        assertEquals(total, count.get());
        assertEquals((long)total * (total + 1) / 2, sum.get());
    }

    @Test
    void shouldTakeCompletionsFromSeveralEngineThreadsWithoutLosingAny() throws Exception
    {
        final int perProducer = 500_000;
        final int producers = 2;
        final CompletionQueue cq = new CompletionQueue(1, 1024);
        final Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++)
        {
            final int producer = p;
            threads[p] = new Thread(() ->
            {
                for (int i = 0; i < perProducer; i++)
                {
                    final long wrId = (long)producer << 32 | i;
                    while (!cq.offer(wrId, WcStatus.SUCCESS, WcOpcode.SEND, i, 0, producer, 0, 0, 0))
                    {
                        Thread.yield(); // full: the consumer catches up (a real engine would report an overrun)
                    }
                }
            });
            threads[p].start();
        }
        final WorkCompletion[] batch = new WorkCompletion[32];
        for (int i = 0; i < batch.length; i++)
        {
            batch[i] = new WorkCompletion();
        }
        final int[] next = new int[producers];
        long received = 0;
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (received < (long)perProducer * producers && System.nanoTime() < deadline)
        {
            final int n = cq.poll(batch, batch.length);
            for (int k = 0; k < n; k++)
            {
                final int producer = (int)(batch[k].wrId() >>> 32);
                final int sequence = (int)batch[k].wrId();
                assertEquals(next[producer], sequence, "each producer's completions in its order");
                assertEquals(producer, batch[k].qpNumber());
                next[producer]++;
            }
            received += n;
            if (n == 0)
            {
                Thread.yield();
            }
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals((long)perProducer * producers, received);
        assertEquals(0, cq.poll(batch, batch.length));
    }

    private static AtomicBuffer directBuffer(final int length)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 128));
    }

    @Test
    void shouldShareOneQueueBetweenTheSideThatFormatsAndTheSideThatAttaches()
    {
        assertEquals(CompletionQueue.HEADER_LENGTH + 8 * 64, CompletionQueue.requiredBytes(5));
        final AtomicBuffer buffer = directBuffer(CompletionQueue.requiredBytes(5));
        final CompletionQueue engineSide = CompletionQueue.format(3, 5, buffer);
        final CompletionQueue clientSide = CompletionQueue.attach(3, new UnsafeBuffer(buffer.addressOffset(),
            buffer.capacity()));
        assertEquals(8, clientSide.capacity());
        assertTrue(engineSide.offer(-5L, WcStatus.WR_FLUSH_ERR, WcOpcode.RDMA_READ, 4096, 0x1234_5678, 17, 19,
            WorkCompletion.WITH_INV, WorkCompletion.NETWORK_HDR_IPV6));
        assertEquals(7, clientSide.remainingCapacity());
        final WorkCompletion[] wcs = new WorkCompletion[2];
        assertEquals(1, clientSide.poll(wcs, 2));
        assertEquals(-5L, wcs[0].wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs[0].status());
        assertEquals(WcOpcode.RDMA_READ, wcs[0].opcode());
        assertEquals(4096, wcs[0].byteLength());
        assertEquals(0x1234_5678, wcs[0].immediateData());
        assertEquals(17, wcs[0].qpNumber());
        assertEquals(19, wcs[0].sourceQp());
        assertEquals(WorkCompletion.WITH_INV, wcs[0].flags());
        assertEquals(WorkCompletion.NETWORK_HDR_IPV6, wcs[0].networkHeaderType());
        assertEquals(8, engineSide.remainingCapacity());

        for (int i = 0; i < 8; i++)
        {
            assertTrue(engineSide.offer(i, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 1, 0, 0, 0));
        }
        assertFalse(engineSide.offer(8, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 1, 0, 0, 0));
        assertEquals(1, clientSide.overruns(), "the overrun is counted in the shared header");
    }

    @Test
    void shouldRefuseToAttachABufferThatIsNotACompletionQueue()
    {
        final AtomicBuffer buffer = directBuffer(CompletionQueue.requiredBytes(16));
        final VerbsException unformatted = assertThrows(VerbsException.class, () -> CompletionQueue.attach(1, buffer));
        assertEquals("not a formatted completion queue: magic 0x0", unformatted.getMessage());

        CompletionQueue.format(1, 16, buffer);
        final AtomicBuffer shorter = new UnsafeBuffer(buffer, 0, CompletionQueue.requiredBytes(8));
        assertThrows(VerbsException.class, () -> CompletionQueue.attach(1, shorter), "16 slots do not fit");
        buffer.putInt(CompletionQueue.CAPACITY_OFFSET, 12);
        assertThrows(VerbsException.class, () -> CompletionQueue.attach(1, buffer), "not a power of two");
        buffer.putInt(CompletionQueue.CAPACITY_OFFSET, 1 << 30);
        assertThrows(VerbsException.class, () -> CompletionQueue.attach(1, buffer));
        assertThrows(VerbsException.class, () -> CompletionQueue.attach(1, new UnsafeBuffer(buffer, 0, 100)));
        assertThrows(VerbsException.class, () -> CompletionQueue.format(1, 32, buffer), "buffer too small");
    }

    /**
     * A client maps the queue's memory and may write anything into it. The engine's offers must still return at once
     * and write only inside the queue's buffer: here the buffer is a slice of a larger one whose edges are checked.
     */
    @Test
    void shouldNeitherHangNorWriteOutsideTheBufferWhenAConsumerScribbles()
    {
        final int guardBytes = 4096;
        final int entries = 16;
        final int length = CompletionQueue.requiredBytes(entries);
        final AtomicBuffer whole = directBuffer(guardBytes + length + guardBytes);
        whole.setMemory(0, whole.capacity(), (byte)0x5A);
        final AtomicBuffer buffer = new UnsafeBuffer(whole, guardBytes, length);
        final CompletionQueue cq = CompletionQueue.format(1, entries, buffer);

        // every sequence ahead of any tail: an honest queue would only see that while other producers claim slots
        for (int i = 0; i < entries; i++)
        {
            buffer.putLong(CompletionQueue.HEADER_LENGTH + i * CompletionQueue.SLOT_LENGTH, Long.MAX_VALUE);
        }
        assertTimeoutPreemptively(Duration.ofSeconds(10),
            () -> assertFalse(cq.offer(1, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 1, 0, 0, 0)));
        assertEquals(1, cq.overruns(), "the give-up counts as an overrun");

        final SplittableRandom random = new SplittableRandom(14);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            for (int round = 0; round < 20_000; round++)
            {
                final int scribbles = 1 + random.nextInt(8);
                for (int s = 0; s < scribbles; s++)
                {
                    final int offset = random.nextInt(length / 8) * 8;
                    final long value = switch (random.nextInt(4))
                    {
                        case 0 -> random.nextLong();
                        case 1 -> buffer.getLong(CompletionQueue.TAIL_OFFSET) + random.nextInt(-3, 4);
                        case 2 -> Long.MIN_VALUE + random.nextInt(entries);
                        default -> Long.MAX_VALUE - random.nextInt(entries);
                    };
                    buffer.putLong(offset, value);
                }
                cq.offer(round, WcStatus.SUCCESS, WcOpcode.SEND, round, 0, 1, 0, 0, 0);
                cq.remainingCapacity();
            }
        });
        for (int i = 0; i < guardBytes; i++)
        {
            assertEquals((byte)0x5A, whole.getByte(i), "before the queue's buffer");
            assertEquals((byte)0x5A, whole.getByte(guardBytes + length + i), "after the queue's buffer");
        }
        assertTrue(cq.remainingCapacity() >= 0 && cq.remainingCapacity() <= cq.capacity());
    }

    @Test
    void shouldAllocateNothingPerCompletion()
    {
        final CompletionQueue cq = new CompletionQueue(1, 64);
        final WorkCompletion[] wcs = completions(4);
        final long bytes = SteadyStateAllocation.leastBytes(() ->
        {
            for (int i = 0; i < 10_000; i++)
            {
                cq.offer(i, WcStatus.SUCCESS, WcOpcode.SEND, i, 0, 1, 0, 0, 0);
                cq.offer(i, WcStatus.RNR_RETRY_EXC_ERR, WcOpcode.RDMA_WRITE, 0, 0, 1, 0, 0, 0);
                cq.poll(wcs, 4);
            }
        }, 1, 20);
        assertEquals(0, bytes);
    }
}
