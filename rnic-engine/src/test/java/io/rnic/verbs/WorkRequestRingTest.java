package io.rnic.verbs;

import io.rnic.testing.SteadyStateAllocation;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
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
        final WorkRequestRing engineSide = WorkRequestRing.format(WorkRequestRing.SEND, 4, 3, true, buffer, null);
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

        assertFalse(engineSide.isPosted(0));
        assertTrue(clientSide.offerSend(sent));
        assertTrue(engineSide.isPosted(0));
        final SendWorkRequest taken = engineSide.postedSend(0);
        assertEquals(sent.wrId, taken.wrId);
        assertEquals(sent.opcode, taken.opcode);
        assertEquals(sent.sendFlags, taken.sendFlags);
        assertEquals(sent.immediateOrInvalidateRKey, taken.immediateOrInvalidateRKey);
        assertEquals(sent.remoteAddress, taken.remoteAddress);
        assertEquals(sent.rKey, taken.rKey);
        assertEquals(sent.compareAdd, taken.compareAdd);
        assertEquals(sent.swap, taken.swap);
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
        assertNull(engineSide.postedSend(1));
        assertSame(taken, engineSide.postedSend(0), "taken once, kept until released");

        sent.opcode = WrOpcode.FLUSH; // its fields are carried with its opcode
        assertTrue(clientSide.offerSend(sent));
        final SendWorkRequest flush = engineSide.postedSend(1);
        assertEquals(sent.flushLength, flush.flushLength);
        assertEquals(sent.flushPlacementType, flush.flushPlacementType);
        assertEquals(sent.flushSelectivityLevel, flush.flushSelectivityLevel);
        sent.opcode = WrOpcode.BIND_MW;
        sent.mwRKey = 0x1234_5678;
        sent.mwNewRKey = 0x1234_5679;
        sent.mwMrLKey = 0x0ABC_DEF0;
        sent.mwAddress = 0x5000;
        sent.mwLength = 0x6000;
        sent.mwAccess = 0x0F;
        assertTrue(clientSide.offerSend(sent));
        final SendWorkRequest bind = engineSide.postedSend(2);
        assertEquals(WrOpcode.BIND_MW, bind.opcode);
        assertEquals(0x1234_5678, bind.mwRKey);
        assertEquals(0x1234_5679, bind.mwNewRKey);
        assertEquals(0x0ABC_DEF0, bind.mwMrLKey);
        assertEquals(0x5000, bind.mwAddress);
        assertEquals(0x6000, bind.mwLength);
        assertEquals(0x0F, bind.mwAccess);
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

        RecvWorkRequest taken = ring.postedRecv(0);
        assertEquals(-77L, taken.wrId);
        assertEquals(2, taken.sgl.count());
        assertEquals(0xDEAD_0000L, taken.sgl.address(0));
        assertEquals(4096, taken.sgl.length(0));
        assertEquals(0x4242, taken.sgl.lKey(0));
        assertEquals(0xBEEF_0000L, taken.sgl.address(1));
        assertEquals(1, taken.sgl.length(1));
        assertEquals(-5, taken.sgl.lKey(1));
        taken = ring.postedRecv(1);
        assertEquals(78L, taken.wrId);
        assertEquals(0, taken.sgl.count());
        assertNull(ring.postedRecv(2));
    }

    @Test
    void shouldRefuseARequestWhenFullUntilTheEngineReleasesASlot()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.RECV, 3, 1);
        assertEquals(4, ring.capacity());
        final RecvWorkRequest request = new RecvWorkRequest(1);
        assertNull(ring.postedRecv(0));
        for (int i = 0; i < 4; i++)
        {
            request.wrId = i;
            assertTrue(ring.offerRecv(request));
        }
        request.wrId = 4;
        assertFalse(ring.offerRecv(request));
        assertEquals(0, ring.postedRecv(0).wrId);
        assertFalse(ring.offerRecv(request), "taken is not released: an RC WQE stays until acknowledged");
        ring.release(0);
        assertTrue(ring.offerRecv(request));
        assertFalse(ring.offerRecv(request));
        for (int i = 1; i <= 4; i++)
        {
            assertEquals(i, ring.postedRecv(i).wrId);
            ring.release(i);
        }
        assertNull(ring.postedRecv(5));
        assertFalse(ring.isPosted(5));
    }

    @Test
    void shouldKeepOrderAndContentAcrossManyWrapArounds()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.SEND, 8, 4);
        final SendWorkRequest sent = new SendWorkRequest(4);
        long nextToOffer = 0;
        long nextToTake = 0;
        for (int burst = 0; burst < 10_000; burst++)
        {
            final int offers = burst % 11;
            for (int i = 0; i < offers; i++)
            {
                sent.reset();
                sent.opcode = WrOpcode.RDMA_WRITE;
                sent.wrId = nextToOffer;
                sent.remoteAddress = nextToOffer * 3;
                for (int s = 0; s < (int)(nextToOffer % 5); s++)
                {
                    sent.sgl.add(nextToOffer + s, (int)nextToOffer & 0xFFFF, s);
                }
                if (!ring.offerSend(sent))
                {
                    assertEquals(8, nextToOffer - nextToTake);
                    break;
                }
                nextToOffer++;
            }
            final int takes = burst % 7;
            for (int i = 0; i < takes; i++)
            {
                final SendWorkRequest taken = ring.postedSend(nextToTake);
                if (taken == null)
                {
                    assertEquals(nextToOffer, nextToTake);
                    break;
                }
                assertEquals(nextToTake, taken.wrId);
                assertEquals(nextToTake * 3, taken.remoteAddress);
                assertEquals((int)(nextToTake % 5), taken.sgl.count());
                for (int s = 0; s < taken.sgl.count(); s++)
                {
                    assertEquals(nextToTake + s, taken.sgl.address(s));
                    assertEquals((int)nextToTake & 0xFFFF, taken.sgl.length(s));
                    assertEquals(s, taken.sgl.lKey(s));
                }
                ring.release(nextToTake++);
            }
        }
        assertTrue(nextToTake > 1000 * 8, "wrapped around many times: " + nextToTake);
    }

    /** Application threads post to one QP at once (ibverbs allows it): every request arrives once, each in order. */
    @Test
    void shouldPassRequestsOfSeveralThreadsEachInOrderToTheEngine() throws Exception
    {
        final int perThread = 300_000;
        final int threads = 2;
        final AtomicBuffer buffer = directBuffer(WorkRequestRing.requiredBytes(256, 2));
        final WorkRequestRing engineSide = WorkRequestRing.format(WorkRequestRing.SEND, 256, 2, buffer);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] producers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            final long thread = t;
            // one thread through the engine's object, the other through its own mapping, as another process
            final WorkRequestRing clientSide = t == 0 ? engineSide :
                WorkRequestRing.attach(WorkRequestRing.SEND, otherMapping(buffer));
            producers[t] = new Thread(() ->
            {
                try
                {
                    final SendWorkRequest request = new SendWorkRequest(2);
                    for (long n = 0; n < perThread; )
                    {
                        request.wrId = thread << 32 | n;
                        request.rKey = (int)n;
                        request.sgl.clear().add(n * 7, (int)(n & 0x7FFF), ~(int)n);
                        if (clientSide.offerSend(request))
                        {
                            n++;
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
            producers[t].start();
        }
        final long[] next = new long[threads];
        long position = 0;
        final long deadlineNs = System.nanoTime() + 60_000_000_000L;
        while (position < (long)threads * perThread && System.nanoTime() < deadlineNs && null == failure.get())
        {
            final SendWorkRequest taken = engineSide.postedSend(position);
            if (taken == null)
            {
                Thread.yield();
                continue;
            }
            final int thread = (int)(taken.wrId >>> 32);
            final long n = taken.wrId & 0xFFFF_FFFFL;
            assertEquals(next[thread], n, "thread " + thread);
            assertEquals((int)n, taken.rKey);
            assertEquals(1, taken.sgl.count());
            assertEquals(n * 7, taken.sgl.address(0));
            assertEquals((int)(n & 0x7FFF), taken.sgl.length(0));
            assertEquals(~(int)n, taken.sgl.lKey(0));
            next[thread]++;
            engineSide.release(position++);
        }
        for (final Thread producer : producers)
        {
            producer.join(60_000);
        }
        assertNull(failure.get());
        assertEquals(perThread, next[0]);
        assertEquals(perThread, next[1]);
        assertNull(engineSide.postedSend(position));
    }

    @Test
    void shouldTakeAMalformedEntryAsOneNoTransportAcceptsCountItAndReportIt()
    {
        final AtomicBuffer buffer = directBuffer(WorkRequestRing.requiredBytes(8, 2));
        final CountersManager counters = new CountersManager(directBuffer(64 * 1024), directBuffer(16 * 1024));
        final AtomicCounter malformed = counters.newCounter("malformed");
        final WorkRequestRing ring = WorkRequestRing.format(WorkRequestRing.SEND, 8, 2, true, buffer, malformed);
        final int entryLength = buffer.getInt(WorkRequestRing.ENTRY_LENGTH_OFFSET);
        final SendWorkRequest request = new SendWorkRequest(2);
        request.opcode = WrOpcode.SEND;
        request.udAddress.destinationMac(0x0211_2233_4455L);
        for (int i = 0; i < 6; i++)
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
        buffer.putInt(first + 3 * entryLength + WorkRequestRing.OPCODE_OFFSET, 0x7777);
        buffer.putLong(first + 4 * entryLength + WorkRequestRing.DESTINATION_MAC_OFFSET, 0); // UD: not resolved

        for (int i = 0; i < 5; i++)
        {
            assertEquals(-1, ring.decodeAhead(1), "entry " + i);
            final SendWorkRequest taken = ring.postedSend(i);
            assertEquals(i, taken.wrId);
            assertEquals(WorkRequestRing.MALFORMED_OPCODE, taken.opcode);
            assertFalse(WrOpcode.isKnown(taken.opcode));
            assertEquals(0, taken.sgl.count());
        }
        assertEquals(5, malformed.get());
        assertEquals(1, ring.decodeAhead(8), "each malformed entry was taken, the next one is intact");
        assertEquals(5, ring.postedSend(5).wrId);
        assertEquals(WrOpcode.SEND, ring.postedSend(5).opcode);
        assertEquals(0, ring.decodeAhead(8));
        assertEquals(5, malformed.get());
    }

    @Test
    void shouldReportAMalformedEntryTheTransportTookBeforeDecodeAhead()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.RECV, 4, 1);
        final RecvWorkRequest request = new RecvWorkRequest(1);
        assertTrue(ring.offerRecv(request));
        ring.buffer().putInt(WorkRequestRing.HEADER_LENGTH + WorkRequestRing.RECV_SGE_COUNT_OFFSET, 2);
        assertEquals(0, ring.postedRecv(0).sgl.count());
        assertEquals(-1, ring.decodeAhead(4));
        assertEquals(0, ring.decodeAhead(4));
    }

    @Test
    void shouldKeepWhatItTookWhateverTheProducerWritesLater()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.SEND, 4, 1);
        final SendWorkRequest request = new SendWorkRequest(1);
        request.opcode = WrOpcode.RDMA_WRITE;
        request.remoteAddress = 0x1000;
        request.sgl.add(0x2000, 64, 7);
        assertTrue(ring.offerSend(request));
        assertEquals(1, ring.decodeAhead(4));
        final AtomicBuffer buffer = ring.buffer();
        buffer.putLong(WorkRequestRing.HEADER_LENGTH + WorkRequestRing.REMOTE_ADDRESS_OFFSET, 0xBAD);
        buffer.putInt(WorkRequestRing.HEADER_LENGTH + WorkRequestRing.SEND_SGE_COUNT_OFFSET, 99);
        buffer.putLong(WorkRequestRing.HEADER_LENGTH + WorkRequestRing.SEQUENCE_OFFSET, 77);
        final SendWorkRequest taken = ring.postedSend(0); // a retransmission reads it again
        assertEquals(0x1000, taken.remoteAddress);
        assertEquals(1, taken.sgl.count());
        assertEquals(64, taken.sgl.length(0));
        ring.release(0);
        assertEquals(4, buffer.getLong(WorkRequestRing.HEADER_LENGTH + WorkRequestRing.SEQUENCE_OFFSET),
            "released for the next lap whatever was scribbled");
    }

    @Test
    void shouldTakeOnlyItsNextPositionWhateverTheProducerPositionAndSequencesSay()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.RECV, 4, 1);
        final AtomicBuffer buffer = ring.buffer();
        final int entryLength = buffer.getInt(WorkRequestRing.ENTRY_LENGTH_OFFSET);
        for (final long scribbled : new long[]{ 0, 1 + 4 + 1, Long.MIN_VALUE, Long.MAX_VALUE, -1 })
        {
            buffer.putLong(WorkRequestRing.PRODUCER_POSITION_OFFSET, scribbled);
            assertNull(ring.postedRecv(0), "producer position " + scribbled);
            assertEquals(0, ring.decodeAhead(4));
        }
        // the sequences of the entries after the next one say "posted" for positions the engine is not at
        buffer.putLong(WorkRequestRing.HEADER_LENGTH + entryLength + WorkRequestRing.SEQUENCE_OFFSET, 2);
        buffer.putLong(WorkRequestRing.HEADER_LENGTH + 2 * entryLength + WorkRequestRing.SEQUENCE_OFFSET, 7);
        assertNull(ring.postedRecv(0));
        assertNull(ring.postedRecv(1), "not the next position");
        assertEquals(0, ring.decodeAhead(4));
        assertFalse(ring.isPosted(0));
        // a lap of sequences scribbled to look posted: a reset releases one lap at most, and goes on
        for (int i = 0; i < 4; i++)
        {
            buffer.putLong(WorkRequestRing.HEADER_LENGTH + i * entryLength + WorkRequestRing.SEQUENCE_OFFSET, i + 1);
        }
        assertEquals(4, ring.releaseFrom(0));
    }

    @Test
    void shouldReleaseWhatIsPostedFromAPositionOnReset()
    {
        final WorkRequestRing ring = ring(WorkRequestRing.RECV, 4, 1);
        final RecvWorkRequest request = new RecvWorkRequest(1);
        for (int i = 0; i < 4; i++)
        {
            request.wrId = i;
            assertTrue(ring.offerRecv(request));
        }
        assertNotNull(ring.postedRecv(0));
        assertNotNull(ring.postedRecv(1));
        ring.release(0);
        assertEquals(4, ring.releaseFrom(1), "taken and not taken alike");
        assertNull(ring.postedRecv(4));
        for (int i = 4; i < 8; i++)
        {
            request.wrId = i;
            assertTrue(ring.offerRecv(request), "every slot is free again");
        }
        assertEquals(4, ring.postedRecv(4).wrId);
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

        buffer.putInt(WorkRequestRing.MAGIC_OFFSET, 0x5157_4E52); // the single-producer layout before it
        assertThrows(VerbsException.class, () -> WorkRequestRing.attach(WorkRequestRing.RECV, buffer));
        buffer.putInt(WorkRequestRing.MAGIC_OFFSET, WorkRequestRing.MAGIC);
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
        assertFalse(ring.isPosted(0));
        assertEquals(0, ring.producerPosition());
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
        final long[] positions = new long[2];
        final long bytes = SteadyStateAllocation.leastBytes(() ->
        {
            for (int i = 0; i < 10_000; i++)
            {
                sends.offerSend(send);
                sends.decodeAhead(1);
                sends.postedSend(positions[0]);
                sends.release(positions[0]++);
                recvs.offerRecv(recv);
                recvs.postedRecv(positions[1]);
                recvs.release(positions[1]++);
            }
        }, 1, 20);
        assertEquals(0, bytes);
    }

    /**
     * Whatever a client writes into its side of the shared memory, the engine takes well-formed or malformed
     * requests with lists it can hold, and nothing is written outside the ring's buffer (a slice of a larger one
     * whose edges are checked).
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
        request.opcode = WrOpcode.RDMA_WRITE;
        request.sgl.add(1, 2, 3).add(4, 5, 6).add(7, 8, 9);
        final SplittableRandom random = new SplittableRandom(14);
        final int[] results = new int[3];
        long position = 0;
        for (int round = 0; round < 20_000; round++)
        {
            clientSide.offerSend(request);
            for (int s = random.nextInt(4); s > 0; s--)
            {
                // the client's side: the producer position and the entries, sequences included
                final int offset = random.nextBoolean() ? WorkRequestRing.PRODUCER_POSITION_OFFSET :
                    random.nextInt(WorkRequestRing.HEADER_LENGTH / 8, length / 8) * 8;
                final long value = switch (random.nextInt(3))
                {
                    case 0 -> random.nextLong();
                    case 1 -> random.nextInt(-2, 12);
                    default -> position + random.nextInt(-2, 10);
                };
                buffer.putLong(offset, value);
            }
            final int result = engineSide.decodeAhead(4);
            results[Integer.signum(result) + 1]++;
            for (SendWorkRequest taken; (taken = engineSide.postedSend(position)) != null; )
            {
                assertTrue(taken.sgl.count() >= 0 && taken.sgl.count() <= 3);
                engineSide.release(position++);
            }
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
