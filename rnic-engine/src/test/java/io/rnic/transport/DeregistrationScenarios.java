package io.rnic.transport;

import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A region deregistered (and its memory perhaps freed) while the transport still has work that names it, on the
 * simulated fabric: shared by {@link DeregistrationTest}, which checks the outcome in detail, and by
 * {@link DeregistrationMain}, which frees the memory too, in a JVM of its own where a stray access is a crash.
 */
final class DeregistrationScenarios
{
    static final long SECOND_NS = 1_000_000_000L;
    /** Three packets at a 1024-byte MTU: FIRST, MIDDLE, LAST. */
    static final int MESSAGE_BYTES = 3072;
    static final int REGION_BYTES = 8192;
    /**
     * A region this large is mapped by malloc on its own (above glibc's largest mmap threshold, 32 MiB) and unmapped
     * when its arena closes: a stray access after that is a SIGSEGV, not a silent write into the C heap.
     */
    static final int UNMAPPED_ON_FREE_BYTES = 40 << 20;
    static final long WR_ID = 77;

    /** What became of a WRITE whose target region went away after its FIRST packet. */
    record ResponderOutcome(
        byte[] afterFirst,
        byte[] atEnd,
        long remoteAccessNaksSent,
        long ucMessagesDropped,
        long acksSent,
        QpState responderState,
        WorkCompletion requesterCompletion)
    {
    }

    /** What became of a WRITE or SEND whose source region went away before its retransmission. */
    record RequesterOutcome(
        WorkCompletion completion,
        QpState requesterState,
        long localAckTimeouts,
        long localProtectionErrors,
        long retransmittedPackets)
    {
    }

    private DeregistrationScenarios()
    {
    }

    /**
     * The peer (A) sends WRITE FIRST; the application on B deregisters the target region (and closes its arena when
     * {@code freeMemory}); A's MIDDLE and LAST then arrive. Frames from A are captured and handed to B one by one.
     */
    static ResponderOutcome writeAcrossDeregistration(final QpType type, final boolean freeMemory)
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        try (Arena arena = Arena.ofShared())
        {
            final Arena targetArena = Arena.ofShared();
            final Connection a = new Connection(fabric.a(), arena, type, REGION_BYTES, AccessFlags.ALL);
            final Connection b = new Connection(
                fabric.b(), targetArena, type, freeMemory ? UNMAPPED_ON_FREE_BYTES : REGION_BYTES, AccessFlags.ALL);
            connect(a, b);
            final List<UnsafeBuffer> fromA = new ArrayList<>();
            fabric.a().engine().sink((buffer, offset, length) ->
            {
                final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
                copy.putBytes(0, buffer, offset, length);
                fromA.add(copy);
            });
            RcOperationsTest.fill(a, 0, MESSAGE_BYTES, 5);
            if (a.qp.postSend(write(a, b.mr.address(), b.mr.rKey())) != 0)
            {
                throw new IllegalStateException("post refused");
            }
            if (!fabric.runUntil(() -> fromA.size() >= 3, SECOND_NS))
            {
                throw new IllegalStateException("A sent " + fromA.size() + " packets, not 3");
            }
            final RnicEngine engineB = fabric.b().engine();
            engineB.onFrame(fromA.get(0), 0, fromA.get(0).capacity());
            final byte[] afterFirst = freeMemory ? null : b.memory.toArray(ValueLayout.JAVA_BYTE);

            fabric.b().deregisterMemoryRegion(b.mr);
            if (freeMemory)
            {
                targetArena.close();
            }
            engineB.onFrame(fromA.get(1), 0, fromA.get(1).capacity());
            engineB.onFrame(fromA.get(2), 0, fromA.get(2).capacity());
            final byte[] atEnd = freeMemory ? null : b.memory.toArray(ValueLayout.JAVA_BYTE);

            // B's answer (if any) goes to A over the fabric; A completes the WRITE with what it hears, in a wait well
            // under A's ACK timeout: only an answer B gave counts
            final WorkCompletion completion = awaitSendCompletion(fabric, a, SECOND_NS / 100);
            final TransportCounters counters = engineB.counters();
            final ResponderOutcome outcome = new ResponderOutcome(afterFirst, atEnd,
                counters.get(TransportCounter.REMOTE_ACCESS_NAK_SENT), counters.get(TransportCounter.DROPPED_UC_MESSAGE),
                counters.get(TransportCounter.ACKS_SENT), b.qp.state(), completion);
            if (!freeMemory)
            {
                targetArena.close();
            }
            return outcome;
        }
    }

    /**
     * A sends a WRITE (or a SEND into a posted receive) that B executes, but B's ACK is lost; A's application then
     * deregisters the source region and closes its arena; A's retransmission timer fires on the virtual clock.
     */
    static RequesterOutcome retransmitFromDeregistered(final int opcode)
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), new LinkConditions().loss(1.0), 3);
        try (Arena arena = Arena.ofShared())
        {
            final Arena sourceArena = Arena.ofShared();
            final Connection a =
                new Connection(fabric.a(), sourceArena, QpType.RC, UNMAPPED_ON_FREE_BYTES, AccessFlags.ALL);
            final Connection b = new Connection(fabric.b(), arena, QpType.RC, REGION_BYTES, AccessFlags.ALL);
            connect(a, b);
            RcOperationsTest.fill(a, 0, MESSAGE_BYTES, 9);
            final SendWorkRequest wr = write(a, b.mr.address(), b.mr.rKey());
            wr.opcode = opcode;
            if (opcode == WrOpcode.SEND)
            {
                final RecvWorkRequest recv = new RecvWorkRequest();
                recv.sgl.add(b.mr.address(), REGION_BYTES, b.mr.lKey());
                b.qp.postRecv(recv);
            }
            if (a.qp.postSend(wr) != 0)
            {
                throw new IllegalStateException("post refused");
            }
            final TransportCounters countersA = fabric.a().engine().counters();
            final TransportCounters countersB = fabric.b().engine().counters();
            if (!fabric.runUntil(() -> countersB.get(TransportCounter.ACKS_SENT) >= 1, SECOND_NS))
            {
                throw new IllegalStateException("B never acknowledged the message");
            }
            fabric.a().deregisterMemoryRegion(a.mr);
            sourceArena.close();

            final WorkCompletion completion = awaitSendCompletion(fabric, a, 10 * SECOND_NS);
            return new RequesterOutcome(completion, a.qp.state(),
                countersA.get(TransportCounter.LOCAL_ACK_TIMEOUT), countersA.get(TransportCounter.LOCAL_PROTECTION_ERROR),
                countersA.get(TransportCounter.RETRANSMITTED_PACKETS));
        }
    }

    /**
     * Both engines driven by a thread of their own (declared as their engine thread) that streams 64 KiB WRITEs from
     * A into a region of B, while this thread deregisters that region and frees its memory in the middle of the
     * stream: the deregistration runs as a command between two packets of B's engine, every later packet is refused.
     *
     * @return what went wrong (nothing: an empty list).
     */
    static List<String> writeStreamAcrossDeregistrationAndFree() throws InterruptedException
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 7);
        final List<String> problems = new ArrayList<>();
        try (Arena arena = Arena.ofShared())
        {
            final Arena targetArena = Arena.ofShared();
            final int messageBytes = 1 << 16;
            final Connection a = new Connection(fabric.a(), arena, QpType.RC, messageBytes, AccessFlags.ALL);
            final Connection b = new Connection(fabric.b(), targetArena, QpType.RC, UNMAPPED_ON_FREE_BYTES,
                AccessFlags.ALL);
            connect(a, b);
            final CountDownLatch streaming = new CountDownLatch(1);
            final CountDownLatch ended = new CountDownLatch(1);
            final AtomicBoolean deregistered = new AtomicBoolean();
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicLong completedBefore = new AtomicLong();
            final AtomicLong completedAfter = new AtomicLong();
            final AtomicReference<WorkCompletion> firstError = new AtomicReference<>();
            final AtomicReference<String> failure = new AtomicReference<>();
            final Thread engines = new Thread(() ->
            {
                final SendWorkRequest wr = write(a, b.mr.address(), b.mr.rKey());
                wr.sgl.clear().add(a.mr.address(), messageBytes, a.mr.lKey());
                int outstanding = 0;
                long next = 0;
                while (!stop.get()) // the engines run until the application is done with them, as a real one's
                {
                    while (firstError.get() == null && failure.get() == null && outstanding < 8)
                    {
                        wr.remoteAddress = b.mr.address() + (next++ % 64) * messageBytes;
                        if (a.qp.postSend(wr) != 0)
                        {
                            failure.set("post refused");
                            streaming.countDown();
                            ended.countDown();
                        }
                        outstanding++;
                    }
                    fabric.step();
                    final int n = a.sendCq.poll(a.completions, a.completions.length);
                    for (int i = 0; i < n; i++)
                    {
                        outstanding--;
                        final WorkCompletion wc = a.completions[i];
                        if (wc.status() != WcStatus.SUCCESS)
                        {
                            if (firstError.compareAndSet(null, wc))
                            {
                                a.completions[i] = new WorkCompletion();
                                streaming.countDown(); // an error before the deregistration: report it, not hang
                                ended.countDown();
                            }
                        }
                        else if (deregistered.get())
                        {
                            completedAfter.incrementAndGet();
                        }
                        else if (completedBefore.incrementAndGet() == 100)
                        {
                            streaming.countDown();
                        }
                    }
                    if (fabric.clock().nanoTime() > 60 * SECOND_NS && failure.compareAndSet(null, "no error after 60 s"))
                    {
                        streaming.countDown();
                        ended.countDown();
                    }
                }
            }, "engines");
            fabric.a().engine().engineThread(engines);
            fabric.b().engine().engineThread(engines);
            engines.start();
            streaming.await();
            fabric.b().deregisterMemoryRegion(b.mr);
            deregistered.set(true);
            targetArena.close();
            ended.await();
            stop.set(true);
            engines.join();

            if (failure.get() != null)
            {
                problems.add("engine thread: " + failure.get());
            }
            final WorkCompletion error = firstError.get();
            if (error == null || error.status() != WcStatus.REM_ACCESS_ERR)
            {
                problems.add("first error completion: expected REM_ACCESS_ERR, was " + error);
            }
            // a WRITE wholly placed before the deregistration may still complete after it (its ACK was on its way);
            // anything beyond the window of 8 outstanding would have been written after
            if (completedAfter.get() > 8)
            {
                problems.add(completedAfter.get() + " WRITEs completed after the deregistration");
            }
            final long naks = fabric.b().engine().counters().get(TransportCounter.REMOTE_ACCESS_NAK_SENT);
            if (naks != 1)
            {
                problems.add("remote access NAKs sent: " + naks);
            }
            return problems;
        }
    }

    /**
     * A READs from B into a region of its own; B's responses are held back while A's application deregisters that
     * region (and frees its memory when {@code freeMemory}), then delivered: the completer must not scatter them.
     *
     * @return what differs from ibverbs (a local protection error on the READ, the QP in ERR): empty when nothing.
     */
    static List<String> readResponseIntoDeregistered(final boolean freeMemory)
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 11);
        try (Arena arena = Arena.ofShared())
        {
            final Arena sinkArena = Arena.ofShared();
            final Connection a = new Connection(
                fabric.a(), sinkArena, QpType.RC, freeMemory ? UNMAPPED_ON_FREE_BYTES : REGION_BYTES, AccessFlags.ALL);
            final Connection b = new Connection(fabric.b(), arena, QpType.RC, REGION_BYTES, AccessFlags.ALL);
            connect(a, b);
            RcOperationsTest.fill(b, 0, MESSAGE_BYTES, 3);
            final List<UnsafeBuffer> fromB = new ArrayList<>();
            fabric.b().engine().sink((buffer, offset, length) ->
            {
                final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
                copy.putBytes(0, buffer, offset, length);
                fromB.add(copy);
            });
            final SendWorkRequest read = write(a, b.mr.address(), b.mr.rKey());
            read.opcode = WrOpcode.RDMA_READ;
            if (a.qp.postSend(read) != 0)
            {
                throw new IllegalStateException("post refused");
            }
            if (!fabric.runUntil(() -> fromB.size() >= 3, SECOND_NS))
            {
                throw new IllegalStateException("B sent " + fromB.size() + " READ responses, not 3");
            }
            fabric.a().deregisterMemoryRegion(a.mr);
            if (freeMemory)
            {
                sinkArena.close();
            }
            final byte[] before = freeMemory ? null : a.memory.toArray(ValueLayout.JAVA_BYTE);
            for (final UnsafeBuffer frame : fromB)
            {
                fabric.a().engine().onFrame(frame, 0, frame.capacity());
            }
            final WorkCompletion completion = awaitSendCompletion(fabric, a, SECOND_NS / 100);
            final List<String> problems = new ArrayList<>();
            if (before != null && !Arrays.equals(before, a.memory.toArray(ValueLayout.JAVA_BYTE)))
            {
                problems.add("a READ response was scattered into the deregistered region");
            }
            expect(problems, "READ completion", WcStatus.LOC_PROT_ERR, completion == null ? null : completion.status());
            expect(problems, "local protection errors", 1,
                fabric.a().engine().counters().get(TransportCounter.LOCAL_PROTECTION_ERROR));
            expect(problems, "requester QP state", QpState.ERR, a.qp.state());
            if (!freeMemory)
            {
                sinkArena.close();
            }
            return problems;
        }
    }

    /**
     * B owes READ responses it cannot send yet (its port has no room) when its application deregisters the region
     * they read (and frees it when {@code freeMemory}); then room comes back. Nothing is read from the region: B
     * answers a remote access NAK, as for a READ that found no region, and its QP goes to ERR.
     *
     * @return what differs from that: empty when nothing.
     */
    static List<String> queuedReadResponsesOfDeregistered(final boolean freeMemory)
    {
        return withFreeableRegionOfB(13, freeMemory, (fabric, a, b, sourceArena) ->
        {
            RcOperationsTest.fill(b, 0, MESSAGE_BYTES, 4);
            final AtomicBoolean room = new AtomicBoolean();
            fabric.b().engine().sink(new PacketSink()
            {
                @Override
                public boolean hasRoom()
                {
                    return room.get();
                }

                @Override
                public void send(final DirectBuffer frame, final int offset, final int length)
                {
                    fabric.bToA().send(frame, offset, length);
                }
            });
            final SendWorkRequest read = write(a, b.mr.address(), b.mr.rKey());
            read.opcode = WrOpcode.RDMA_READ;
            if (a.qp.postSend(read) != 0)
            {
                throw new IllegalStateException("post refused");
            }
            final TransportCounters countersB = fabric.b().engine().counters();
            if (!fabric.runUntil(() -> countersB.get(TransportCounter.TX_QUEUE_FULL) >= 1, SECOND_NS))
            {
                throw new IllegalStateException("B never had a READ response waiting for room");
            }
            fabric.b().deregisterMemoryRegion(b.mr);
            if (freeMemory)
            {
                sourceArena.close();
            }
            room.set(true);
            final WorkCompletion completion = awaitSendCompletion(fabric, a, 10 * SECOND_NS);
            final List<String> problems = new ArrayList<>();
            expect(problems, "responses abandoned", 0, countersB.get(TransportCounter.RESPONSE_ABANDONED));
            expect(problems, "responder QP state", QpState.ERR, b.qp.state());
            expect(problems, "READ completion", WcStatus.REM_ACCESS_ERR,
                completion == null ? null : completion.status());
            expect(problems, "remote access NAKs sent", 1, countersB.get(TransportCounter.REMOTE_ACCESS_NAK_SENT));
            return problems;
        });
    }

    /**
     * A SENDs three packets into a receive B posted; B's application deregisters the receive buffer's region (and
     * frees it when {@code freeMemory}) after the FIRST packet has been placed. The receive completes with a local
     * protection error and B answers a remote operational NAK (rxe's answer to a receive it cannot place).
     *
     * @return what differs from that: empty when nothing.
     */
    static List<String> sendAcrossDeregistration(final boolean freeMemory)
    {
        return withFreeableRegionOfB(17, freeMemory, (fabric, a, b, receiveArena) ->
        {
            RcOperationsTest.fill(a, 0, MESSAGE_BYTES, 6);
            final RecvWorkRequest recv = new RecvWorkRequest();
            recv.wrId = 5;
            recv.sgl.add(b.mr.address(), REGION_BYTES, b.mr.lKey());
            b.qp.postRecv(recv);
            final List<UnsafeBuffer> fromA = new ArrayList<>();
            fabric.a().engine().sink((buffer, offset, length) ->
            {
                final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
                copy.putBytes(0, buffer, offset, length);
                fromA.add(copy);
            });
            final SendWorkRequest send = write(a, 0, 0);
            send.opcode = WrOpcode.SEND;
            if (a.qp.postSend(send) != 0)
            {
                throw new IllegalStateException("post refused");
            }
            if (!fabric.runUntil(() -> fromA.size() >= 3, SECOND_NS))
            {
                throw new IllegalStateException("A sent " + fromA.size() + " packets, not 3");
            }
            final RnicEngine engineB = fabric.b().engine();
            engineB.onFrame(fromA.get(0), 0, fromA.get(0).capacity());
            fabric.b().deregisterMemoryRegion(b.mr);
            if (freeMemory)
            {
                receiveArena.close();
            }
            final byte[] before = freeMemory ? null : b.memory.toArray(ValueLayout.JAVA_BYTE);
            engineB.onFrame(fromA.get(1), 0, fromA.get(1).capacity());
            engineB.onFrame(fromA.get(2), 0, fromA.get(2).capacity());
            final List<String> problems = new ArrayList<>();
            if (before != null && !Arrays.equals(before, b.memory.toArray(ValueLayout.JAVA_BYTE)))
            {
                problems.add("the deregistered receive buffer was written");
            }
            final WorkCompletion received = b.recvCq.poll(b.completions, 1) == 1 ? b.completions[0] : null;
            expect(problems, "receive completion", WcStatus.LOC_PROT_ERR, received == null ? null : received.status());
            expect(problems, "receive wr_id", 5L, received == null ? null : received.wrId());
            final TransportCounters counters = engineB.counters();
            expect(problems, "local protection errors", 1, counters.get(TransportCounter.LOCAL_PROTECTION_ERROR));
            expect(problems, "remote operational NAKs sent", 1,
                counters.get(TransportCounter.REMOTE_OPERATIONAL_NAK_SENT));
            return problems;
        });
    }

    /** The body of a scenario over A and B, connected by RC, given the arena of B's region so that it may free it. */
    @FunctionalInterface
    private interface FreeableRegionScenario
    {
        List<String> run(TwoNodeFabric fabric, Connection a, Connection b, Arena regionArenaOfB);
    }

    /**
     * Runs {@code scenario} on a fabric of its own over A and B connected by RC, B's region in an arena of its own
     * ({@link #UNMAPPED_ON_FREE_BYTES} when {@code freeMemory}, which the scenario then closes), closed after it
     * otherwise.
     *
     * @return the scenario's problems.
     */
    private static List<String> withFreeableRegionOfB(
        final long seed, final boolean freeMemory, final FreeableRegionScenario scenario)
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), seed);
        try (Arena arena = Arena.ofShared())
        {
            final Arena regionArena = Arena.ofShared();
            final Connection a = new Connection(fabric.a(), arena, QpType.RC, REGION_BYTES, AccessFlags.ALL);
            final Connection b = new Connection(fabric.b(), regionArena, QpType.RC,
                freeMemory ? UNMAPPED_ON_FREE_BYTES : REGION_BYTES, AccessFlags.ALL);
            connect(a, b);
            final List<String> problems = scenario.run(fabric, a, b, regionArena);
            if (!freeMemory)
            {
                regionArena.close();
            }
            return problems;
        }
    }

    /** @return A's next send completion, or null when none comes within {@code timeoutNs} of virtual time. */
    private static WorkCompletion awaitSendCompletion(final TwoNodeFabric fabric, final Connection a, final long timeoutNs)
    {
        final WorkCompletion[] completion = new WorkCompletion[1];
        fabric.runUntil(() ->
        {
            if (a.sendCq.poll(a.completions, 1) == 1)
            {
                completion[0] = a.completions[0];
            }
            return completion[0] != null;
        }, timeoutNs);
        return completion[0];
    }

    private static void connect(final Connection a, final Connection b)
    {
        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000, AccessFlags.ALL);
        b.connect(a, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000, AccessFlags.ALL);
    }

    private static SendWorkRequest write(final Connection from, final long remoteAddress, final int rKey)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = WR_ID;
        wr.opcode = WrOpcode.RDMA_WRITE;
        wr.sgl.add(from.mr.address(), MESSAGE_BYTES, from.mr.lKey());
        wr.remoteAddress = remoteAddress;
        wr.rKey = rKey;
        return wr;
    }

    /** Every way {@code outcome} differs from what a hardware RNIC does (RC: NAK and ERR; UC: a silent drop). */
    static List<String> problems(final QpType type, final ResponderOutcome outcome)
    {
        final List<String> problems = new ArrayList<>();
        if (outcome.atEnd() != null && !Arrays.equals(outcome.afterFirst(), outcome.atEnd()))
        {
            problems.add("the deregistered region was written");
        }
        if (type == QpType.RC)
        {
            expect(problems, "remote access NAKs sent", 1, outcome.remoteAccessNaksSent());
            expect(problems, "ACKs sent", 0, outcome.acksSent());
            expect(problems, "responder QP state", QpState.ERR, outcome.responderState());
            expect(problems, "requester completion", WcStatus.REM_ACCESS_ERR,
                outcome.requesterCompletion() == null ? null : outcome.requesterCompletion().status());
        }
        else
        {
            expect(problems, "UC messages dropped", 1, outcome.ucMessagesDropped());
            expect(problems, "responder QP state", QpState.RTS, outcome.responderState());
        }
        return problems;
    }

    /** Every way {@code outcome} differs from ibverbs: LOC_PROT_ERR on the WQE after a retransmission timeout. */
    static List<String> problems(final RequesterOutcome outcome)
    {
        final List<String> problems = new ArrayList<>();
        final WorkCompletion wc = outcome.completion();
        expect(problems, "completion status", WcStatus.LOC_PROT_ERR, wc == null ? null : wc.status());
        expect(problems, "completion wr_id", WR_ID, wc == null ? null : wc.wrId());
        expect(problems, "requester QP state", QpState.ERR, outcome.requesterState());
        expect(problems, "local protection errors", 1, outcome.localProtectionErrors());
        if (outcome.localAckTimeouts() < 1)
        {
            problems.add("no local ACK timeout fired");
        }
        return problems;
    }

    private static void expect(final List<String> problems, final String what, final Object expected, final Object actual)
    {
        if (!Objects.equals(toLong(expected), toLong(actual)))
        {
            problems.add(what + ": expected " + expected + ", was " + actual);
        }
    }

    private static Object toLong(final Object value)
    {
        return value instanceof Number number ? (Object)number.longValue() : value;
    }
}
