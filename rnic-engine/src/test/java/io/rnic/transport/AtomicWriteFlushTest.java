package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.DropReason;
import io.rnic.wire.FethFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.PacketBuilder;
import io.rnic.wire.RethFlyweight;
import io.rnic.wire.RocePacket;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The IBTA 1.5 ATOMIC WRITE and FLUSH between two engines on the simulated link: byte-exact placement, FLUSH after
 * the writes before it, the access rules rxe applies, duplicates answered without executing again, and
 * retransmission under loss.
 */
class AtomicWriteFlushTest extends ArenaScopedTest
{
    private static final int REGION_BYTES = 1 << 20;
    private static final int MR_ACCESS = AccessFlags.ALL | AccessFlags.FLUSH_GLOBAL;
    private static final int QP_ACCESS = AccessFlags.ALL | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT;
    private static final ValueLayout.OfLong NATIVE_LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);

    private Connection[] pair(final int responderMrAccess, final int qpAccess)
    {
        final Connection a = new Connection(fabric.a(), arena, QpType.RC, REGION_BYTES, MR_ACCESS);
        final Connection b = new Connection(fabric.b(), arena, QpType.RC, REGION_BYTES, responderMrAccess);
        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000, qpAccess, 16, 16);
        b.connect(a, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000, qpAccess, 16, 16);
        return new Connection[]{ a, b };
    }

    private Connection[] pair()
    {
        return pair(MR_ACCESS, QP_ACCESS);
    }

    private WorkCompletion await(final Connection c)
    {
        assertTrue(fabric.runUntil(() -> c.sendCq.poll(c.completions, 1) == 1, SECOND_NS),
            "no completion within a simulated second");
        return c.completions[0];
    }

    private static SendWorkRequest atomicWrite(final Connection from, final Connection to, final long remoteOffset)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 15;
        wr.opcode = WrOpcode.ATOMIC_WRITE;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.sgl.add(from.mr.address(), Long.BYTES, from.mr.lKey());
        wr.remoteAddress = to.mr.address() + remoteOffset;
        wr.rKey = to.mr.rKey();
        return wr;
    }

    private static SendWorkRequest flush(
        final Connection to, final long remoteOffset, final int length, final int type, final int level)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 14;
        wr.opcode = WrOpcode.FLUSH;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.remoteAddress = to.mr.address() + remoteOffset;
        wr.rKey = to.mr.rKey();
        wr.flushLength = length;
        wr.flushPlacementType = type;
        wr.flushSelectivityLevel = level;
        return wr;
    }

    private static List<UnsafeBuffer> capture(final TwoNodeFabric fabric, final boolean fromA)
    {
        final List<UnsafeBuffer> frames = new ArrayList<>();
        (fromA ? fabric.a() : fabric.b()).engine().sink((buffer, offset, length) ->
        {
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
            copy.putBytes(0, buffer, offset, length);
            frames.add(copy);
            (fromA ? fabric.aToB() : fabric.bToA()).send(buffer, offset, length);
        });
        return frames;
    }

    private static UnsafeBuffer only(final List<UnsafeBuffer> frames, final int opcode, final RocePacket packet)
    {
        final InboundValidator validator = new InboundValidator();
        UnsafeBuffer found = null;
        for (final UnsafeBuffer frame : frames)
        {
            assertEquals(DropReason.NONE, validator.validate(frame, 0, frame.capacity(), packet));
            if (packet.opcode() == opcode)
            {
                assertEquals(null, found, "one " + Opcode.name(opcode));
                found = frame;
            }
        }
        assertTrue(found != null, "no " + Opcode.name(opcode));
        assertEquals(DropReason.NONE, validator.validate(found, 0, found.capacity(), packet));
        return found;
    }

    @Test
    void shouldAtomicWriteEightBytesByteExactAndAnswerWithAnEmptyReadResponse()
    {
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final Connection b = pair[1];
        final List<UnsafeBuffer> fromA = capture(fabric, true);
        final List<UnsafeBuffer> fromB = capture(fabric, false);
        final byte[] value = { 1, 2, 3, 4, 5, 6, 7, (byte)0xF8 };
        for (int i = 0; i < value.length; i++)
        {
            a.memory.set(ValueLayout.JAVA_BYTE, i, value[i]);
        }
        b.memory.set(NATIVE_LONG, 56, -1L);
        b.memory.set(NATIVE_LONG, 72, -1L);

        assertEquals(QueuePair.POST_OK, a.qp.postSend(atomicWrite(a, b, 64)));
        final WorkCompletion wc = await(a);

        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.ATOMIC_WRITE, wc.opcode());
        assertEquals(15, wc.wrId());
        assertEquals(Long.BYTES, wc.byteLength());
        for (int i = 0; i < value.length; i++)
        {
            assertEquals(value[i], b.memory.get(ValueLayout.JAVA_BYTE, 64 + i), "byte " + i);
        }
        assertEquals(-1L, b.memory.get(NATIVE_LONG, 56), "the bytes before are untouched");
        assertEquals(-1L, b.memory.get(NATIVE_LONG, 72), "the bytes after are untouched");

        final RocePacket packet = new RocePacket();
        final UnsafeBuffer request = only(fromA, Opcode.RC_ATOMIC_WRITE, packet);
        assertTrue(packet.ackRequest());
        assertEquals(Long.BYTES, packet.payloadLength());
        final RethFlyweight reth = new RethFlyweight().wrapAt(request, packet.headerOffset(Opcode.RETH));
        assertEquals(b.mr.address() + 64, reth.virtualAddress());
        assertEquals(b.mr.rKey() & 0xFFFF_FFFFL, reth.rKey());
        assertEquals(Long.BYTES, reth.dmaLength());
        only(fromB, Opcode.RC_RDMA_READ_RESPONSE_ONLY, packet);
        assertEquals(0, packet.payloadLength());
    }

    @Test
    void shouldNeverShowAConcurrentReaderHalfAnAtomicWrite() throws InterruptedException
    {
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final Connection b = pair[1];
        final long low = 0x0000_0000_0000_0000L;
        final long high = 0xFFFF_FFFF_FFFF_FFFFL;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong torn = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong reads = new AtomicLong();
        final Thread reader = new Thread(() ->
        {
            long n = 0;
            while (!stop.get())
            {
                final long v = b.memory.get(ValueLayout.JAVA_LONG, 128);
                if (v != low && v != high)
                {
                    torn.set(v);
                }
                n++;
            }
            reads.set(n);
        });
        reader.start();
        try
        {
            for (int i = 0; i < 2_000; i++)
            {
                a.memory.set(NATIVE_LONG, 0, (i & 1) == 0 ? high : low);
                assertEquals(QueuePair.POST_OK, a.qp.postSend(atomicWrite(a, b, 128)));
                assertEquals(WcStatus.SUCCESS, await(a).status());
            }
        }
        finally
        {
            stop.set(true);
            reader.join();
        }
        assertTrue(reads.get() > 0);
        assertEquals(Long.MIN_VALUE, torn.get(), "a reader saw 0x" + Long.toHexString(torn.get()));
        assertEquals(low, b.memory.get(ValueLayout.JAVA_LONG, 128));
    }

    @Test
    void shouldCompleteFlushOnlyAfterTheWritesBeforeItArePlaced()
    {
        fabric = new TwoNodeFabric(new LinkConditions().loss(0.05).reorder(0.05), 7);
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final Connection b = pair[1];
        final List<UnsafeBuffer> fromA = capture(fabric, true);
        final int length = 100_000;
        RcOperationsTest.fill(a, 0, length, 3);
        final SendWorkRequest write = a.signalledWriteTo(b, length);
        write.wrId = 1;
        assertEquals(QueuePair.POST_OK, a.qp.postSend(write));
        assertEquals(QueuePair.POST_OK,
            a.qp.postSend(flush(b, 0, length, FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_RANGE)));

        final WorkCompletion first = await(a);
        assertEquals(WcStatus.SUCCESS, first.status());
        assertEquals(WcOpcode.RDMA_WRITE, first.opcode());
        final WorkCompletion second = await(a);
        assertEquals(WcStatus.SUCCESS, second.status());
        assertEquals(WcOpcode.FLUSH, second.opcode());
        assertEquals(14, second.wrId());
        RcOperationsTest.assertBytes(b, 0, length, 3);

        final RocePacket packet = new RocePacket();
        final InboundValidator validator = new InboundValidator();
        boolean sawFlush = false;
        for (final UnsafeBuffer frame : fromA)
        {
            assertEquals(DropReason.NONE, validator.validate(frame, 0, frame.capacity(), packet));
            if (packet.opcode() == Opcode.RC_FLUSH)
            {
                sawFlush = true;
                assertEquals(0, packet.payloadLength());
                final FethFlyweight feth = new FethFlyweight().wrapAt(frame, packet.headerOffset(Opcode.FETH));
                assertEquals(FethFlyweight.PLACEMENT_GLOBAL, feth.placementType());
                assertEquals(FethFlyweight.SELECTIVITY_RANGE, feth.selectivityLevel());
                final RethFlyweight reth = new RethFlyweight().wrapAt(frame, packet.headerOffset(Opcode.RETH));
                assertEquals(length, reth.dmaLength());
                assertEquals(packet.headerOffset(Opcode.FETH) + FethFlyweight.LENGTH, packet.headerOffset(Opcode.RETH));
            }
        }
        assertTrue(sawFlush);
    }

    @Test
    void shouldAnswerAFlushOnlyAfterTheReadResponsesOwedBeforeIt()
    {
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final Connection b = pair[1];
        final List<UnsafeBuffer> fromB = capture(fabric, false);
        final int length = 64 * 1024;
        RcOperationsTest.fill(b, 0, length, 9);
        final SendWorkRequest read = new SendWorkRequest();
        read.wrId = 4;
        read.opcode = WrOpcode.RDMA_READ;
        read.sgl.add(a.mr.address(), length, a.mr.lKey());
        read.remoteAddress = b.mr.address();
        read.rKey = b.mr.rKey();
        assertEquals(QueuePair.POST_OK, a.qp.postSend(read));
        assertEquals(QueuePair.POST_OK,
            a.qp.postSend(flush(b, 0, length, FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_RANGE)));
        assertEquals(WcOpcode.RDMA_READ, await(a).opcode());
        assertEquals(WcOpcode.FLUSH, await(a).opcode());
        RcOperationsTest.assertBytes(a, 0, length, 9);

        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();
        final List<Integer> payloads = new ArrayList<>();
        for (final UnsafeBuffer frame : fromB)
        {
            assertEquals(DropReason.NONE, validator.validate(frame, 0, frame.capacity(), packet));
            payloads.add(packet.payloadLength());
        }
        assertEquals(length / 1024 + 1, payloads.size(), "64 READ responses, then the FLUSH's: " + payloads);
        assertEquals(0, payloads.get(payloads.size() - 1), "the empty answer comes last: " + payloads);
    }

    @Test
    void shouldFlushTheWholeRegionAtSelectivityMrWithoutLookingAtTheRange()
    {
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final Connection b = pair[1];
        // an address and length far outside the region: at level MR only the R_Key counts (rxe skips the range check)
        final SendWorkRequest wr = flush(b, 1L << 40, Integer.MAX_VALUE, FethFlyweight.PLACEMENT_GLOBAL,
            FethFlyweight.SELECTIVITY_MR);
        assertEquals(QueuePair.POST_OK, a.qp.postSend(wr));
        final WorkCompletion wc = await(a);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.FLUSH, wc.opcode());
    }

    @Test
    void shouldRefuseAFlushTheRegionDoesNotAllow()
    {
        final Connection[] pair = pair(AccessFlags.ALL, QP_ACCESS);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(
            flush(pair[1], 0, 4096, FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_RANGE)));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(pair[0]).status());
    }

    @Test
    void shouldRefuseAFlushTheQpDoesNotAllow()
    {
        final Connection[] pair = pair(MR_ACCESS, AccessFlags.ALL);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(
            flush(pair[1], 0, 4096, FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_MR)));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(pair[0]).status());
    }

    @Test
    void shouldRefuseAFlushToPersistenceSinceNoRegionIsPersistentMemory()
    {
        assertThrows(VerbsException.class, () -> fabric.b().registerMemoryRegion(fabric.b().allocPd(),
            arena.allocate(4096, 4096), AccessFlags.LOCAL_WRITE | AccessFlags.FLUSH_PERSISTENT));
        final Connection[] pair = pair();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(
            flush(pair[1], 0, 4096, FethFlyweight.PLACEMENT_PERSISTENT, FethFlyweight.SELECTIVITY_RANGE)));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(pair[0]).status());
    }

    @Test
    void shouldRefuseAFlushRangeOutsideTheRegion()
    {
        final Connection[] pair = pair();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(
            flush(pair[1], REGION_BYTES - 8, 16, FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_RANGE)));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(pair[0]).status());
    }

    @Test
    void shouldFailAFlushOfNoPlacementTypeLocally()
    {
        final Connection[] pair = pair();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(flush(pair[1], 0, 8, 0, FethFlyweight.SELECTIVITY_RANGE)));
        assertEquals(WcStatus.LOC_QP_OP_ERR, await(pair[0]).status());
    }

    @Test
    void shouldRefuseAMisalignedAtomicWriteAsAnInvalidRequest()
    {
        final Connection[] pair = pair();
        pair[1].memory.set(NATIVE_LONG, 64, 0x1111_2222_3333_4444L);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(atomicWrite(pair[0], pair[1], 60)));
        assertEquals(WcStatus.REM_INV_REQ_ERR, await(pair[0]).status());
        assertEquals(0x1111_2222_3333_4444L, pair[1].memory.get(NATIVE_LONG, 64));
    }

    @Test
    void shouldRefuseAnAtomicWriteOutsideTheRegion()
    {
        final Connection[] pair = pair();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(atomicWrite(pair[0], pair[1], REGION_BYTES)));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(pair[0]).status());
    }

    @Test
    void shouldRefuseAnAtomicWriteWithoutRemoteWriteAccess()
    {
        final Connection[] pair = pair(MR_ACCESS, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ |
            AccessFlags.REMOTE_ATOMIC);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(atomicWrite(pair[0], pair[1], 64)));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(pair[0]).status());
    }

    @Test
    void shouldRefuseAnAtomicWriteWhenTheResponderTakesNoReadsOrAtomics()
    {
        // rxe's check_resource: an ATOMIC WRITE needs max_dest_rd_atomic > 0 (RESPST_ERR_TOO_MANY_RDMA_ATM_REQ)
        final Connection a = new Connection(fabric.a(), arena, QpType.RC, REGION_BYTES, MR_ACCESS);
        final Connection b = new Connection(fabric.b(), arena, QpType.RC, REGION_BYTES, MR_ACCESS);
        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000, QP_ACCESS, 16, 0);
        b.connect(a, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000, QP_ACCESS, 16, 0);
        assertEquals(QueuePair.POST_OK, a.qp.postSend(atomicWrite(a, b, 64)));
        assertEquals(WcStatus.REM_INV_REQ_ERR, await(a).status());
        assertEquals(1, fabric.b().engine().counters().get(TransportCounter.READ_ATOMIC_EXCEEDED));
    }

    @Test
    void shouldFailAnAtomicWriteOfOtherThanEightBytesLocally()
    {
        final Connection[] pair = pair();
        final SendWorkRequest wr = atomicWrite(pair[0], pair[1], 64);
        wr.sgl.clear();
        wr.sgl.add(pair[0].mr.address(), 16, pair[0].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(wr));
        assertEquals(WcStatus.LOC_LEN_ERR, await(pair[0]).status());
    }

    @Test
    void shouldAnswerADuplicateAtomicWriteWithoutWritingAgain()
    {
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final Connection b = pair[1];
        final List<UnsafeBuffer> fromA = capture(fabric, true);
        final List<UnsafeBuffer> fromB = capture(fabric, false);
        a.memory.set(NATIVE_LONG, 0, 0x0102_0304_0506_0708L);
        assertEquals(QueuePair.POST_OK, a.qp.postSend(atomicWrite(a, b, 64)));
        assertEquals(WcStatus.SUCCESS, await(a).status());
        assertEquals(0x0102_0304_0506_0708L, b.memory.get(NATIVE_LONG, 64));

        final UnsafeBuffer request = only(fromA, Opcode.RC_ATOMIC_WRITE, new RocePacket());
        b.memory.set(NATIVE_LONG, 64, 42L); // written since, by the responder's host
        final int responsesBefore = fromB.size();
        final long duplicatesBefore = fabric.b().engine().counters().get(TransportCounter.DUPLICATE_REQUEST);
        fabric.b().engine().onFrame(request, 0, request.capacity());
        fabric.runUntil(() -> fromB.size() > responsesBefore, SECOND_NS);

        assertEquals(42L, b.memory.get(NATIVE_LONG, 64), "a duplicate ATOMIC WRITE is not executed again");
        assertEquals(duplicatesBefore + 1, fabric.b().engine().counters().get(TransportCounter.DUPLICATE_REQUEST));
        assertEquals(responsesBefore + 1, fromB.size());
        final RocePacket packet = new RocePacket();
        final UnsafeBuffer answer = fromB.get(fromB.size() - 1);
        assertEquals(DropReason.NONE, new InboundValidator().validate(answer, 0, answer.capacity(), packet));
        assertEquals(Opcode.RC_RDMA_READ_RESPONSE_ONLY, packet.opcode());
        assertEquals(0, packet.payloadLength());
        final RocePacket original = new RocePacket();
        new InboundValidator().validate(request, 0, request.capacity(), original);
        assertEquals(original.psn(), packet.psn(), "answered at the duplicate's PSN");
    }

    @Test
    void shouldAnswerADuplicateFlushAgain()
    {
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final List<UnsafeBuffer> fromA = capture(fabric, true);
        final List<UnsafeBuffer> fromB = capture(fabric, false);
        assertEquals(QueuePair.POST_OK, a.qp.postSend(
            flush(pair[1], 0, 64, FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_RANGE)));
        assertEquals(WcStatus.SUCCESS, await(a).status());

        final UnsafeBuffer request = only(fromA, Opcode.RC_FLUSH, new RocePacket());
        final int responsesBefore = fromB.size();
        fabric.b().engine().onFrame(request, 0, request.capacity());
        fabric.runUntil(() -> fromB.size() > responsesBefore, SECOND_NS);

        assertEquals(responsesBefore + 1, fromB.size());
        final RocePacket packet = new RocePacket();
        final UnsafeBuffer answer = fromB.get(fromB.size() - 1);
        assertEquals(DropReason.NONE, new InboundValidator().validate(answer, 0, answer.capacity(), packet));
        assertEquals(Opcode.RC_RDMA_READ_RESPONSE_ONLY, packet.opcode());
        assertEquals(0, packet.payloadLength());
    }

    @Test
    void shouldFailAnAtomicWriteAnsweredWithDataAsABadResponse()
    {
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final Connection b = pair[1];
        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();
        final PacketBuilder builder = new PacketBuilder();
        // B's answer is replaced by a READ RESPONSE ONLY at the same PSN that carries 4 bytes
        fabric.b().engine().sink((buffer, offset, length) ->
        {
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
            copy.putBytes(0, buffer, offset, length);
            validator.validate(copy, 0, length, packet);
            if (packet.opcode() != Opcode.RC_RDMA_READ_RESPONSE_ONLY)
            {
                fabric.bToA().send(buffer, offset, length);
                return;
            }
            final FrameSpec spec = new FrameSpec().ethernet(TwoNodeFabric.MAC_A, TwoNodeFabric.MAC_B)
                .ipv4(TwoNodeFabric.IP_B, TwoNodeFabric.IP_A)
                .bth(Opcode.RC_RDMA_READ_RESPONSE_ONLY, a.qp.qpn(), packet.psn()).aeth(0x1F, 1);
            final UnsafeBuffer forged = new UnsafeBuffer(new byte[128]);
            final int forgedLength = builder.build(forged, 0, spec, new UnsafeBuffer(new byte[4]), 0, 4);
            fabric.bToA().send(forged, 0, forgedLength);
        });
        assertEquals(QueuePair.POST_OK, a.qp.postSend(atomicWrite(a, b, 64)));
        assertEquals(WcStatus.BAD_RESP_ERR, await(a).status());
    }

    @Test
    void shouldStayByteExactUnderLossReorderingAndDuplication()
    {
        fabric = new TwoNodeFabric(new LinkConditions().loss(0.1).reorder(0.1).duplicate(0.1), 11);
        final Connection[] pair = pair();
        final Connection a = pair[0];
        final Connection b = pair[1];
        final int operations = 300;
        final int writeBytes = 3000;
        final long slotsOffset = 1 << 19;
        final long atomicOffset = 3 << 18; // past every WRITE's bytes
        int completed = 0;
        for (int i = 0; i < operations; i++)
        {
            final SendWorkRequest wr;
            switch (i % 3)
            {
                case 0 ->
                {
                    RcOperationsTest.fill(a, (long)(i % 16) * writeBytes, writeBytes, i);
                    wr = a.signalledWriteTo(b, writeBytes);
                    wr.sgl.clear();
                    wr.sgl.add(a.mr.address() + (long)(i % 16) * writeBytes, writeBytes, a.mr.lKey());
                    wr.remoteAddress = b.mr.address() + (long)i * writeBytes % slotsOffset;
                }
                case 1 ->
                {
                    final long source = atomicOffset + (long)i * Long.BYTES;
                    a.memory.set(NATIVE_LONG, source, 0x5A5A_0000_0000_0000L + i);
                    wr = atomicWrite(a, b, atomicOffset + (long)i * Long.BYTES);
                    wr.sgl.clear();
                    wr.sgl.add(a.mr.address() + source, Long.BYTES, a.mr.lKey());
                }
                default ->
                    wr = flush(b, 0, REGION_BYTES, FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_RANGE);
            }
            wr.wrId = i;
            assertEquals(QueuePair.POST_OK, a.qp.postSend(wr));
            if (i % 3 == 0)
            {
                // a WRITE's source buffer is reused: wait for it before refilling that slot 16 operations later
                while (completed <= i - 15)
                {
                    assertEquals(WcStatus.SUCCESS, await(a).status());
                    assertEquals(completed, a.completions[0].wrId());
                    completed++;
                }
            }
        }
        while (completed < operations)
        {
            final WorkCompletion wc = await(a);
            assertEquals(WcStatus.SUCCESS, wc.status(), "operation " + completed);
            assertEquals(completed, wc.wrId());
            final int expectedOpcode = completed % 3 == 0 ? WcOpcode.RDMA_WRITE :
                completed % 3 == 1 ? WcOpcode.ATOMIC_WRITE : WcOpcode.FLUSH;
            assertEquals(expectedOpcode, wc.opcode());
            completed++;
        }
        for (int i = 1; i < operations; i += 3)
        {
            assertEquals(0x5A5A_0000_0000_0000L + i, b.memory.get(NATIVE_LONG, atomicOffset + (long)i * Long.BYTES));
        }
        for (int i = operations - 3; i >= operations - 3 * 16; i -= 3)
        {
            RcOperationsTest.assertBytes(b, (long)i * writeBytes % slotsOffset, writeBytes, i);
        }
        assertTrue(fabric.a().engine().counters().get(TransportCounter.RETRANSMITTED_PACKETS) > 0,
            "the loss made the requester retransmit");
    }
}
