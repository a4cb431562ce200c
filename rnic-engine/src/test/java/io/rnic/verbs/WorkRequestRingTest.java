package io.rnic.verbs;

import io.rnic.testing.SteadyStateAllocation;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkRequestRingTest
{
    private static AtomicBuffer directBuffer(final int length)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 128));
    }

    /** A second view of the same memory, as the other process would map it. */
    private static AtomicBuffer otherMapping(final AtomicBuffer buffer)
    {
        return new UnsafeBuffer(buffer.addressOffset(), buffer.capacity());
    }

    private static WorkRequestRing ring(final int kind, final int entries, final int maxSge)
    {
        final AtomicBuffer buffer = directBuffer(WorkRequestRing.requiredBytes(entries, maxSge));
        return WorkRequestRing.format(kind, entries, maxSge, buffer);
    }

    private static void assertSameSgl(final ScatterGatherList expected, final ScatterGatherList actual)
    {
        assertEquals(expected.count(), actual.count());
        for (int i = 0; i < expected.count(); i++)
        {
            assertEquals(expected.address(i), actual.address(i), "address " + i);
            assertEquals(expected.length(i), actual.length(i), "length " + i);
            assertEquals(expected.lKey(i), actual.lKey(i), "lKey " + i);
        }
        assertEquals(expected.totalLength(), actual.totalLength(), "total length");
    }

    @Test
    void shouldCarryEveryFieldOfASendRequestFromTheClientToTheEngine()
    {
        final AtomicBuffer buffer = directBuffer(WorkRequestRing.requiredBytes(4, 3));
        final WorkRequestRing engineSide = WorkRequestRing.format(WorkRequestRing.SEND, 4, 3, buffer);
        final WorkRequestRing clientSide = WorkRequestRing.attach(WorkRequestRing.SEND, otherMapping(buffer));
        assertEquals(3, clientSide.maxSge());
        assertEquals(4, clientSide.capacity());

        final SendWorkRequest sent = new SendWorkRequest(3);
        sent.wrId = 0x1122_3344_5566_7788L;
        sent.opcode = WrOpcode.ATOMIC_CMP_AND_SWP;
        sent.sendFlags = SendFlags.SIGNALED | SendFlags.FENCE;
        sent.immediateOrInvalidateRKey = 0xCAFE_F00D;
        sent.remoteAddress = 0x7F00_0000_1000L;
        sent.rKey = 0x0BAD_BEEF;
        sent.compareAdd = -2L;
        sent.swap = 0x0123_4567_89AB_CDEFL;
        sent.flushLength = 0x8765_4321;
        sent.flushPlacementType = 3;
        sent.flushSelectivityLevel = 1;
        sent.udRemoteQpn = 0xAB_CDEF;
        sent.udRemoteQkey = 0x8001_0000;
        sent.udAddress.destinationGid(0xFE80_0000_0000_0000L, 0x0211_22FF_FE33_4455L).sourceGidIndex(3).hopLimit(17)
            .trafficClass(0xB8).flowLabel(0xF_FFFE).serviceLevel(5).destinationMac(0x0211_2233_4455L);
        sent.sgl.add(0x1000, 64, 0x100).add(-8L, Integer.MAX_VALUE, -1).add(0x3000, 0, 0x300);

        assertTrue(clientSide.offerSend(sent));
        assertEquals(1, engineSide.size());
        final SendWorkRequest taken = new SendWorkRequest(3);
        assertEquals(1, engineSide.pollSend(taken));
        assertEquals(sent.wrId, taken.wrId);
        assertEquals(sent.opcode, taken.opcode);
        assertEquals(sent.sendFlags, taken.sendFlags);
        assertEquals(sent.immediateOrInvalidateRKey, taken.immediateOrInvalidateRKey);
        assertEquals(sent.remoteAddress, taken.remoteAddress);
        assertEquals(sent.rKey, taken.rKey);
        assertEquals(sent.compareAdd, taken.compareAdd);
        assertEquals(sent.swap, taken.swap);
        assertEquals(sent.flushLength, taken.flushLength);
        assertEquals(sent.flushPlacementType, taken.flushPlacementType);
        assertEquals(sent.flushSelectivityLevel, taken.flushSelectivityLevel);
        assertEquals(sent.udRemoteQpn, taken.udRemoteQpn);
        assertEquals(sent.udRemoteQkey, taken.udRemoteQkey);
        final AddressVector av = taken.udAddress;
        assertEquals(sent.udAddress.destinationGidHigh(), av.destinationGidHigh());
        assertEquals(sent.udAddress.destinationGidLow(), av.destinationGidLow());
        assertEquals(3, av.sourceGidIndex());
        assertEquals(17, av.hopLimit());
        assertEquals(0xB8, av.trafficClass());
        assertEquals(0xF_FFFE, av.flowLabel());
        assertEquals(5, av.serviceLevel());
        assertEquals(0x0211_2233_4455L, av.destinationMac());
        assertSameSgl(sent.sgl, taken.sgl);
        assertTrue(engineSide.isEmpty());
        assertEquals(0, engineSide.pollSend(taken));
    }

    @Test
    void shouldCarryEveryFieldOfAReceiveRequest()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.RECV, 2, 2);
        final RecvWorkRequest posted = new RecvWorkRequest(2);
        posted.wrId = -77L;
        posted.sgl.add(0xDEAD_0000L, 4096, 0x4242).add(0xBEEF_0000L, 1, -5);
        assertTrue(ring.offerRecv(posted));
        posted.wrId = 78L;
        posted.sgl.clear();
        assertTrue(ring.offerRecv(posted), "an empty scatter/gather list is a zero-length receive");

        final RecvWorkRequest taken = new RecvWorkRequest(2);
        assertEquals(1, ring.pollRecv(taken));
        assertEquals(-77L, taken.wrId);
        assertEquals(2, taken.sgl.count());
        assertEquals(0xDEAD_0000L, taken.sgl.address(0));
        assertEquals(4096, taken.sgl.length(0));
        assertEquals(0x4242, taken.sgl.lKey(0));
        assertEquals(0xBEEF_0000L, taken.sgl.address(1));
        assertEquals(1, taken.sgl.length(1));
        assertEquals(-5, taken.sgl.lKey(1));
        assertEquals(1, ring.pollRecv(taken));
        assertEquals(78L, taken.wrId);
        assertEquals(0, taken.sgl.count());
        assertEquals(0, ring.pollRecv(taken));
    }

    @Test
    void shouldRefuseARequestWhenFullAndTakeNothingWhenEmpty()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.RECV, 3, 1);
        assertEquals(4, ring.capacity());
        final RecvWorkRequest request = new RecvWorkRequest(1);
        assertTrue(ring.isEmpty());
        assertEquals(0, ring.size());
        assertEquals(0, ring.pollRecv(request));
        for (int i = 0; i < 4; i++)
        {
            request.wrId = i;
            assertTrue(ring.offerRecv(request));
        }
        request.wrId = 4;
        assertFalse(ring.offerRecv(request));
        assertEquals(4, ring.size());
        assertEquals(1, ring.pollRecv(request));
        assertEquals(0, request.wrId);
        request.wrId = 4;
        assertTrue(ring.offerRecv(request));
        for (int i = 1; i <= 4; i++)
        {
            assertEquals(1, ring.pollRecv(request));
            assertEquals(i, request.wrId);
        }
        assertTrue(ring.isEmpty());
        assertEquals(0, ring.pollRecv(request));
    }

    @Test
    void shouldKeepOrderAndContentAcrossManyWrapArounds()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.SEND, 8, 4);
        final SendWorkRequest sent = new SendWorkRequest(4);
        final SendWorkRequest taken = new SendWorkRequest(4);
        long nextToOffer = 0;
        long nextToTake = 0;
        for (int burst = 0; burst < 10_000; burst++)
        {
            final int offers = burst % 11;
            for (int i = 0; i < offers; i++)
            {
                sent.reset();
                sent.wrId = nextToOffer;
                sent.remoteAddress = nextToOffer * 3;
                for (int s = 0; s < (int)(nextToOffer % 5); s++)
                {
                    sent.sgl.add(nextToOffer + s, (int)nextToOffer & 0xFFFF, s);
                }
                if (!ring.offerSend(sent))
                {
                    assertEquals(8, ring.size());
                    break;
                }
                nextToOffer++;
            }
            final int polls = burst % 7;
            for (int i = 0; i < polls; i++)
            {
                final int result = ring.pollSend(taken);
                if (0 == result)
                {
                    assertEquals(nextToOffer, nextToTake);
                    break;
                }
                assertEquals(1, result);
                assertEquals(nextToTake, taken.wrId);
                assertEquals(nextToTake * 3, taken.remoteAddress);
                assertEquals((int)(nextToTake % 5), taken.sgl.count());
                for (int s = 0; s < taken.sgl.count(); s++)
                {
                    assertEquals(nextToTake + s, taken.sgl.address(s));
                    assertEquals((int)nextToTake & 0xFFFF, taken.sgl.length(s));
                    assertEquals(s, taken.sgl.lKey(s));
                }
                nextToTake++;
            }
            assertEquals(nextToOffer - nextToTake, ring.size());
        }
        assertTrue(nextToTake > 1000 * 8, "wrapped around many times: " + nextToTake);
    }

    @Test
    void shouldPassAMillionRequestsInOrderFromOneThreadToAnother() throws Exception
    {
        final int total = 1_000_000;
        final AtomicBuffer buffer = directBuffer(WorkRequestRing.requiredBytes(256, 2));
        final WorkRequestRing engineSide = WorkRequestRing.format(WorkRequestRing.SEND, 256, 2, buffer);
        final WorkRequestRing clientSide = WorkRequestRing.attach(WorkRequestRing.SEND, otherMapping(buffer));
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread client = new Thread(() ->
        {
            try
            {
                final SendWorkRequest request = new SendWorkRequest(2);
                for (long wrId = 0; wrId < total; )
                {
                    request.wrId = wrId;
                    request.rKey = (int)wrId;
                    request.sgl.clear().add(wrId * 7, (int)(wrId & 0x7FFF), ~(int)wrId);
                    if (clientSide.offerSend(request))
                    {
                        wrId++;
                    }
                    else
                    {
                        Thread.yield(); // full: the engine catches up
                    }
                }
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        });
        client.start();
        final SendWorkRequest taken = new SendWorkRequest(2);
        long next = 0;
        final long deadlineNs = System.nanoTime() + 60_000_000_000L;
        while (next < total && System.nanoTime() < deadlineNs && null == failure.get())
        {
            final int result = engineSide.pollSend(taken);
            if (0 == result)
            {
                Thread.yield();
                continue;
            }
            assertEquals(1, result);
            assertEquals(next, taken.wrId);
            assertEquals((int)next, taken.rKey);
            assertEquals(1, taken.sgl.count());
            assertEquals(next * 7, taken.sgl.address(0));
            assertEquals((int)(next & 0x7FFF), taken.sgl.length(0));
            assertEquals(~(int)next, taken.sgl.lKey(0));
            next++;
        }
        client.join(60_000);
        assertNull(failure.get());
        assertEquals(total, next);
        assertTrue(engineSide.isEmpty());
    }

    @Test
    void shouldConsumeAMalformedEntryAndReportIt()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.SEND, 4, 2);
        final AtomicBuffer buffer = ring.buffer();
        final int entryLength = buffer.getInt(WorkRequestRing.ENTRY_LENGTH_OFFSET);
        final SendWorkRequest request = new SendWorkRequest(2);
        final SendWorkRequest taken = new SendWorkRequest(2);
        for (int i = 0; i < 4; i++)
        {
            request.wrId = i;
            request.sgl.clear().add(0x1000, 8, 1);
            assertTrue(ring.offerSend(request));
        }
        final int first = WorkRequestRing.HEADER_LENGTH;
        buffer.putInt(first + WorkRequestRing.SEND_SGE_COUNT_OFFSET, 3); // more than maxSge
        buffer.putInt(first + entryLength + WorkRequestRing.SEND_SGE_COUNT_OFFSET, -1);
        buffer.putInt(first + 2 * entryLength + WorkRequestRing.SEND_SGL_OFFSET + WorkRequestRing.SGE_LENGTH_OFFSET,
            -8);

        assertEquals(-1, ring.pollSend(taken), "count > maxSge");
        assertEquals(-1, ring.pollSend(taken), "negative count");
        assertEquals(-1, ring.pollSend(taken), "negative length");
        assertEquals(1, ring.pollSend(taken), "each malformed entry was consumed, the next one is intact");
        assertEquals(3, taken.wrId);
        assertEquals(0, ring.pollSend(taken));
        assertEquals(4, buffer.getLong(WorkRequestRing.CONSUMER_POSITION_OFFSET));
    }

    @Test
    void shouldTakeNothingWhileTheProducerPositionIsNotCredible()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.RECV, 4, 1);
        final AtomicBuffer buffer = ring.buffer();
        final RecvWorkRequest request = new RecvWorkRequest(1);
        request.wrId = 41;
        assertTrue(ring.offerRecv(request));
        request.wrId = 42;
        assertTrue(ring.offerRecv(request));
        assertEquals(1, ring.pollRecv(request));
        assertEquals(41, request.wrId);

        // the consumer's own position is 1; the shared one is scribbled too, and must not be believed
        buffer.putLong(WorkRequestRing.CONSUMER_POSITION_OFFSET, -100);
        for (final long scribbled : new long[]{ 0, 1 + 4 + 1, Long.MIN_VALUE, Long.MAX_VALUE, -1 })
        {
            buffer.putLong(WorkRequestRing.PRODUCER_POSITION_OFFSET, scribbled);
            assertEquals(-1, ring.pollRecv(request), "producer position " + scribbled);
            assertEquals(0, ring.size());
            assertFalse(ring.isEmpty());
        }
        buffer.putLong(WorkRequestRing.PRODUCER_POSITION_OFFSET, 2);
        assertEquals(1, ring.size());
        assertEquals(1, ring.pollRecv(request), "nothing was consumed meanwhile");
        assertEquals(42, request.wrId);
        assertEquals(0, ring.pollRecv(request));
        assertEquals(2, buffer.getLong(WorkRequestRing.CONSUMER_POSITION_OFFSET));
    }

    @Test
    void shouldRefuseToAttachAnythingButAFormattedRingOfTheKindAsked()
    {
        final AtomicBuffer buffer = directBuffer(WorkRequestRing.requiredBytes(8, 2));
        final VerbsException unformatted = assertThrows(VerbsException.class,
            () -> WorkRequestRing.attach(WorkRequestRing.SEND, buffer));
        assertEquals("not a formatted work request ring: magic 0x0", unformatted.getMessage());

        WorkRequestRing.format(WorkRequestRing.RECV, 8, 2, buffer);
        final VerbsException wrongKind = assertThrows(VerbsException.class,
            () -> WorkRequestRing.attach(WorkRequestRing.SEND, buffer));
        assertEquals("work request ring holds RECV requests, not SEND", wrongKind.getMessage());
        assertEquals(8, WorkRequestRing.attach(WorkRequestRing.RECV, buffer).capacity());

        buffer.putInt(WorkRequestRing.MAX_SGE_OFFSET, 16); // entries longer than the header says
        assertThrows(VerbsException.class, () -> WorkRequestRing.attach(WorkRequestRing.RECV, buffer));
        buffer.putInt(WorkRequestRing.MAX_SGE_OFFSET, 2);
        buffer.putInt(WorkRequestRing.CAPACITY_OFFSET, 1 << 19);
        assertThrows(VerbsException.class, () -> WorkRequestRing.attach(WorkRequestRing.RECV, buffer),
            "more entries than the buffer holds");
        assertThrows(VerbsException.class, () -> WorkRequestRing.format(WorkRequestRing.RECV, 64, 2, buffer));
        assertThrows(VerbsException.class, () -> WorkRequestRing.format(3, 8, 2, buffer));
        assertThrows(VerbsException.class, () -> WorkRequestRing.format(WorkRequestRing.SEND, 8, 17, buffer));
    }

    @Test
    void shouldRefuseTheCallersOwnMistakesBeforeWritingAnything()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.SEND, 4, 2);
        final SendWorkRequest tooMany = new SendWorkRequest(3);
        tooMany.sgl.add(1, 1, 1).add(2, 2, 2).add(3, 3, 3);
        assertThrows(VerbsException.class, () -> ring.offerSend(tooMany));
        assertThrows(VerbsException.class, () -> ring.offerRecv(new RecvWorkRequest(1)));
        assertThrows(VerbsException.class, () -> ring.pollSend(new SendWorkRequest(1)), "into holds fewer than 2");
        assertTrue(ring.isEmpty());
    }

    @Test
    void shouldAllocateNothingPerRequest()
    {
        final WorkRequestRing sends = ring(WorkRequestRing.SEND, 64, 4);
        final WorkRequestRing recvs = ring(WorkRequestRing.RECV, 64, 4);
        final SendWorkRequest send = new SendWorkRequest(4);
        send.sgl.add(1, 2, 3).add(4, 5, 6);
        final RecvWorkRequest recv = new RecvWorkRequest(4);
        recv.sgl.add(7, 8, 9);
        final long bytes = SteadyStateAllocation.leastBytes(() ->
        {
            for (int i = 0; i < 10_000; i++)
            {
                sends.offerSend(send);
                sends.pollSend(send);
                recvs.offerRecv(recv);
                recvs.pollRecv(recv);
            }
        }, 1, 20);
        assertEquals(0, bytes);
    }

    /**
     * Whatever a client writes into its side of the shared memory, the engine's polls return -1, 0 or 1 with a list
     * it can hold, and nothing is written outside the ring's buffer (a slice of a larger one whose edges are checked).
     */
    @Test
    void shouldStayInsideTheBufferWhateverIsScribbledOnIt()
    {
        final int guardBytes = 4096;
        final int length = WorkRequestRing.requiredBytes(8, 3);
        final AtomicBuffer whole = directBuffer(guardBytes + length + guardBytes);
        whole.setMemory(0, whole.capacity(), (byte)0x5A);
        final AtomicBuffer buffer = new UnsafeBuffer(whole, guardBytes, length);
        final WorkRequestRing engineSide = WorkRequestRing.format(WorkRequestRing.SEND, 8, 3, buffer);
        final WorkRequestRing clientSide = WorkRequestRing.attach(WorkRequestRing.SEND, otherMapping(buffer));
        final SendWorkRequest request = new SendWorkRequest(3);
        request.sgl.add(1, 2, 3).add(4, 5, 6).add(7, 8, 9);
        final SendWorkRequest taken = new SendWorkRequest(3);
        final SplittableRandom random = new SplittableRandom(14);
        final int[] results = new int[3];
        for (int round = 0; round < 20_000; round++)
        {
            clientSide.offerSend(request);
            for (int s = random.nextInt(4); s > 0; s--)
            {
                // the client's side: its own position and the entries (the consumer position is the engine's)
                final int offset = random.nextBoolean() ? WorkRequestRing.PRODUCER_POSITION_OFFSET :
                    random.nextInt(WorkRequestRing.HEADER_LENGTH / 8, length / 8) * 8;
                final long value = switch (random.nextInt(3))
                {
                    case 0 -> random.nextLong();
                    case 1 -> random.nextInt(-2, 12);
                    default -> buffer.getLong(WorkRequestRing.CONSUMER_POSITION_OFFSET) + random.nextInt(-2, 10);
                };
                buffer.putLong(offset, value);
            }
            final int result = engineSide.pollSend(taken);
            results[result + 1]++;
            assertTrue(taken.sgl.count() >= 0 && taken.sgl.count() <= 3);
        }
        assertTrue(results[0] > 0 && results[2] > 0, "malformed and well-formed entries both seen: " +
            results[0] + " / " + results[1] + " / " + results[2]);
        for (int i = 0; i < guardBytes; i++)
        {
            assertEquals((byte)0x5A, whole.getByte(i), "before the ring's buffer");
            assertEquals((byte)0x5A, whole.getByte(guardBytes + length + i), "after the ring's buffer");
        }
    }
}
