package io.rnic.verbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkQueueRingTest
{
    private static WorkQueueRing<SendWorkRequest> sendQueue(final int size)
    {
        return new WorkQueueRing<>(size, SendWorkRequest::new, (from, to) -> to.copyFrom(from));
    }

    @Test
    void shouldCopyThePostedRequestSoTheCallerCanReuseIt()
    {
        final WorkQueueRing<SendWorkRequest> sq = sendQueue(4);
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 42;
        wr.opcode = WrOpcode.RDMA_WRITE;
        wr.sgl.add(0x1000, 64, 7).add(0x2000, 32, 8);
        wr.remoteAddress = 0xABCD;
        assertTrue(sq.offer(wr));
        wr.reset();

        final SendWorkRequest posted = sq.posted(0);
        assertNotSame(wr, posted);
        assertEquals(42, posted.wrId);
        assertEquals(WrOpcode.RDMA_WRITE, posted.opcode);
        assertEquals(2, posted.sgl.count());
        assertEquals(96, posted.sgl.totalLength());
        assertEquals(0xABCD, posted.remoteAddress);
        assertNull(sq.posted(1));
    }

    @Test
    void shouldRefuseWhenFullUntilTheEngineReleases()
    {
        final WorkQueueRing<SendWorkRequest> sq = sendQueue(2);
        final SendWorkRequest wr = new SendWorkRequest();
        assertTrue(sq.offer(wr));
        assertTrue(sq.offer(wr));
        assertFalse(sq.offer(wr));
        sq.release(0);
        assertTrue(sq.offer(wr));
        assertFalse(sq.offer(wr));
    }

    @Test
    void shouldKeepEveryRequestFromSeveralPostingThreadsExactlyOnce() throws Exception
    {
        final int perThread = 300_000;
        final int threads = 3;
        final WorkQueueRing<SendWorkRequest> sq = sendQueue(256);
        final Thread[] producers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            final int base = t * perThread;
            producers[t] = new Thread(() ->
            {
                final SendWorkRequest wr = new SendWorkRequest();
                for (int i = 1; i <= perThread; )
                {
                    wr.wrId = base + i;
                    wr.rKey = base + i; // travels with wrId
                    if (sq.offer(wr))
                    {
                        i++;
                    }
                    else
                    {
                        Thread.yield();
                    }
                }
            });
            producers[t].start();
        }
        final long total = (long)perThread * threads;
        long sum = 0;
        final long[] lastPerProducer = new long[threads];
        for (long position = 0; position < total; )
        {
            final SendWorkRequest posted = sq.posted(position);
            if (posted == null)
            {
                Thread.onSpinWait();
                continue;
            }
            assertEquals(posted.wrId, posted.rKey);
            final int producer = (int)((posted.wrId - 1) / perThread);
            assertTrue(posted.wrId > lastPerProducer[producer], "each thread's requests stay in its order");
            lastPerProducer[producer] = posted.wrId;
            sum += posted.wrId;
            sq.release(position++);
        }
        for (final Thread producer : producers)
        {
            producer.join(60_000);
        }
        assertEquals(total * (total + 1) / 2, sum);
    }
}
