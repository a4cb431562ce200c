package io.rnic.verbs;

import io.rnic.testing.FutexSleepers;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one event ring, a producer's side and a consumer's side over the same memory as a driver and its client map
 * it: records in order, a consumer asleep on the futex woken by the next record, a full ring refusing records (an
 * asynchronous event dropped and counted), and a consumer position a scribbling consumer wrote taken for a full ring.
 */
class EventRingTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final String SLEEPER = "ev-ring-sleeper";

    private final UnsafeBuffer memory = new UnsafeBuffer(
        BufferUtil.allocateDirectAligned((int)EventRing.fileLength(), 4096));
    private final EventRing producer = EventRing.format(memory);
    private final EventRing consumer = EventRing.attach(new UnsafeBuffer(memory.addressOffset(), memory.capacity()));

    @Test
    void shouldHandRecordsOverInOrderWithTheirKindHandleAndPayload()
    {
        assertEquals(-1, consumer.peek());
        assertTrue(producer.offerAsyncEvent(AsyncEvent.SRQ_LIMIT_REACHED, 0, 7));
        final long position = producer.claim(EventRing.KIND_CM_UPDATE, 42);
        producer.buffer().putInt(producer.slotOffset(position) + EventRing.PAYLOAD_OFFSET, 0xC0FFEE);
        assertTrue(consumer.peek() >= 0, "the asynchronous event is there, published");
        int slot = consumer.peek();
        assertEquals(EventRing.KIND_ASYNC_EVENT, consumer.kind(slot));
        assertEquals(7, consumer.handle(slot));
        assertEquals(AsyncEvent.SRQ_LIMIT_REACHED, consumer.payloadInt(slot, EventRing.EVENT_TYPE_OFFSET));
        consumer.take();
        assertEquals(-1, consumer.peek(), "claimed is not published: the consumer waits for the commit");
        producer.commit(position);
        slot = consumer.peek();
        assertEquals(EventRing.KIND_CM_UPDATE, consumer.kind(slot));
        assertEquals(42, consumer.handle(slot));
        assertEquals(0xC0FFEE, consumer.payloadInt(slot, 0));
        consumer.take();
        assertEquals(-1, consumer.peek());
    }

    @Test
    void shouldWakeAConsumerAsleepOnTheFutexWhenARecordIsPublished() throws Exception
    {
        final CompletableFuture<Integer> woken = new CompletableFuture<>();
        final Thread sleeper = new Thread(() -> woken.complete(awaitRecord()), SLEEPER);
        sleeper.start();
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!FutexSleepers.isAsleep(SLEEPER)) // in the kernel: only a wake-up gets it out before its timeout
        {
            assertTrue(System.nanoTime() < deadlineNs, "the consumer never slept on the ring");
            LockSupport.parkNanos(100_000);
        }
        final int wakeupsBefore = memory.getIntVolatile(EventRing.WAKEUPS_OFFSET);
        assertEquals(1, memory.getIntVolatile(EventRing.WAKE_ARMED_OFFSET), "a sleeping consumer armed the ring");
        assertTrue(producer.offerAsyncEvent(AsyncEvent.QP_LAST_WQE_REACHED, 0x11, 9));
        assertEquals(9, woken.get(10, TimeUnit.SECONDS), "the consumer took the record it was woken for");
        assertEquals(wakeupsBefore + 1, memory.getIntVolatile(EventRing.WAKEUPS_OFFSET), "one wake-up");
        assertEquals(0, memory.getIntVolatile(EventRing.WAKE_ARMED_OFFSET), "the producer disarmed the ring");
        sleeper.join();
    }

    /** Waits far longer than the test does: only a wake-up ends its sleep in time. */
    private int awaitRecord()
    {
        final long deadlineNs = System.nanoTime() + 6 * TIMEOUT_NS;
        int slot;
        while ((slot = consumer.peek()) < 0 && System.nanoTime() < deadlineNs)
        {
            final int seen = consumer.wakeups();
            consumer.await(seen, deadlineNs - System.nanoTime());
        }
        return slot < 0 ? -1 : consumer.handle(slot);
    }

    @Test
    void shouldRefuseRecordsWhenFullAndCountTheAsynchronousEventsDropped()
    {
        for (int i = 0; i < EventRing.CAPACITY; i++)
        {
            assertTrue(producer.offerAsyncEvent(AsyncEvent.SRQ_LIMIT_REACHED, 0, i + 1));
        }
        assertEquals(-1, producer.claim(EventRing.KIND_CM_UPDATE, 1), "full: a CM change waits for room");
        assertFalse(producer.offerAsyncEvent(AsyncEvent.SRQ_LIMIT_REACHED, 0, 5000));
        assertEquals(1, consumer.droppedEvents());
        assertEquals(1, consumer.handle(consumer.peek()), "the oldest stays");
        consumer.take();
        final long position = producer.claim(EventRing.KIND_CM_UPDATE, 77);
        assertTrue(position >= 0, "a record taken makes room");
        producer.commit(position);
        for (int i = 1; i < EventRing.CAPACITY; i++)
        {
            assertEquals(i + 1, consumer.handle(consumer.peek()));
            consumer.take();
        }
        assertEquals(77, consumer.handle(consumer.peek()));
    }

    @Test
    void shouldTakeAConsumerPositionThatIsNotCredibleForAFullRing()
    {
        memory.putLongVolatile(EventRing.CONSUMER_POSITION_OFFSET, 1_000_000); // ahead of anything written
        assertEquals(-1, producer.claim(EventRing.KIND_CM_REQUEST, 1));
        memory.putLongVolatile(EventRing.CONSUMER_POSITION_OFFSET, -EventRing.CAPACITY - 1); // a lap and more behind
        assertFalse(producer.offerAsyncEvent(AsyncEvent.SRQ_LIMIT_REACHED, 0, 1));
        memory.putLongVolatile(EventRing.CONSUMER_POSITION_OFFSET, 0);
        assertTrue(producer.offerAsyncEvent(AsyncEvent.SRQ_LIMIT_REACHED, 0, 1), "credible again: room again");
    }

    @Test
    void shouldRefuseToAttachMemoryItsProducerDidNotFormat()
    {
        final UnsafeBuffer blank =
            new UnsafeBuffer(BufferUtil.allocateDirectAligned((int)EventRing.fileLength(), 4096));
        assertTrue(assertThrows(VerbsException.class, () -> EventRing.attach(blank)).getMessage()
            .startsWith("not an event ring"));
    }
}
