package io.rnic.verbs;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompletionQueueNotifyTest
{
    private static final long LONG_NS = TimeUnit.SECONDS.toNanos(60);

    @Test
    void shouldWakeABlockedConsumerWhenACompletionArrives() throws Exception
    {
        final CompletionQueue cq = new CompletionQueue(1, 8);
        final WorkCompletion[] completions = new WorkCompletion[4];
        final CompletableFuture<Integer> polled = CompletableFuture.supplyAsync(
            () -> cq.pollBlocking(completions, 4, LONG_NS));
        while (cq.buffer().getIntVolatile(CompletionQueue.NOTIFY_ARMED_OFFSET) == 0)
        {
            Thread.onSpinWait(); // the consumer found nothing and asked to be told
        }
        assertFalse(polled.isDone());
        assertTrue(cq.offer(42, WcStatus.SUCCESS, WcOpcode.RECV, 8, 0, 3, 0, 0, 0));

        assertEquals(1, polled.get(LONG_NS, TimeUnit.NANOSECONDS));
        assertEquals(42, completions[0].wrId());
        assertEquals(0, cq.buffer().getIntVolatile(CompletionQueue.NOTIFY_ARMED_OFFSET), "one-shot: disarmed");
        assertEquals(1, cq.notifications());
    }

    @Test
    void shouldNotCallTheKernelForAQueueNobodyWaitsOn()
    {
        final CompletionQueue cq = new CompletionQueue(1, 8);
        for (int i = 0; i < 5; i++)
        {
            assertTrue(cq.offer(i, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 3, 0, 0, 0));
        }
        assertEquals(0, cq.notifications());
    }

    @Test
    void shouldReturnNothingAtTheTimeout()
    {
        final CompletionQueue cq = new CompletionQueue(1, 8);
        assertEquals(0, cq.pollBlocking(new WorkCompletion[1], 1, TimeUnit.MILLISECONDS.toNanos(20)));
        assertFalse(cq.awaitNotification(cq.notifications(), TimeUnit.MILLISECONDS.toNanos(5)));
    }

    @Test
    void shouldReturnAtOnceWhatIsAlreadyThere()
    {
        final CompletionQueue cq = new CompletionQueue(1, 8);
        assertTrue(cq.offer(7, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 3, 0, 0, 0));
        final WorkCompletion[] completions = new WorkCompletion[1];
        assertEquals(1, cq.pollBlocking(completions, 1, LONG_NS));
        assertEquals(7, completions[0].wrId());
    }

    @Test
    void shouldRefuseAQueueInAHeapArray()
    {
        final UnsafeBuffer heap = new UnsafeBuffer(new byte[CompletionQueue.requiredBytes(4)]);
        assertThrows(VerbsException.class, () -> CompletionQueue.format(1, 4, heap));
    }
}
