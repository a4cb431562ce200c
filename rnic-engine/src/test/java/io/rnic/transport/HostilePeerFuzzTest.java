package io.rnic.transport;

import io.rnic.device.ConnectParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.SimulatedLink;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.DropReason;
import io.rnic.wire.Ecn;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.PacketBuilder;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A hostile peer against the whole transport, not only the validator ({@code InboundFuzzTest}): ICRC-valid frames
 * of every opcode with random R_Keys (valid, stale, of another PD, without remote access, random), addresses in
 * range, straddling a region's ends or far away, lengths and payloads around the path MTU, PSNs expected, near and
 * far, FIRST/MIDDLE/LAST sequences in and out of order, to RC/UC/UD QPs and unknown QPNs, from the connected peer,
 * a foreign IPv4 address or over IPv6, at canary-guarded regions that are deregistered and registered again while
 * frames arrive.
 *
 * <p>The oracle allows, it does not require: after each frame every byte of every watched segment (registrations
 * and their guards) is compared with a shadow copy, and a changed byte must lie in the range of a request a correct
 * RNIC may execute: from the QP's connected peer, in sequence, no larger than the path MTU, an RDMA WRITE or atomic
 * whose R_Key names a live registration of the QP's PD granting the access, in bounds, on a QP granting it too (a
 * MIDDLE/LAST: inside the FIRST's range while that registration is still live), or a SEND into the QP's receive
 * buffers. Afterwards a legitimate connection the fuzzer hit only from foreign addresses, and a fresh one, still
 * WRITE, READ, SEND and FETCH_ADD byte-exact. {@value #FRAMES_PROP_NAME} and {@value #SEED_PROP_NAME} set the run.
 */
class HostilePeerFuzzTest
{
    static final String FRAMES_PROP_NAME = "rnic.fuzz.frames";
    static final long FRAMES_DEFAULT = 1_000_000;
    static final String SEED_PROP_NAME = "rnic.fuzz.seed";
    static final long SEED_DEFAULT = 0x5EED_2026L;

    private static final long SECOND_NS = 1_000_000_000L;
    /** The hostile peer the fuzzed QPs are connected to. */
    private static final int IP_C = 0x0A00_0003;
    private static final long MAC_C = 0x02_00_00_00_0C_03L;
    private static final long GID_HIGH = 0xFD00_0000_0000_0000L;
    private static final long GID_LOW_B = 0xB;
    private static final int QKEY = 0x0BAD_CAFE;
    private static final int RECV_AREA_BYTES = 1024 + UdResponder.GRH_BYTES + 216;
    private static final int RECEIVES_POSTED = 2;
    private static final int[] CHURN_ACCESS = {
        AccessFlags.ALL, AccessFlags.ALL, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, AccessFlags.REMOTE_READ };
    private static final int[] OPCODES = definedOpcodes();
    /** Without the transport bits; WITH_INVALIDATE last (RC only). */
    private static final int[] SEND_ONLY_OPCODES = {
        Opcode.SEND_ONLY, Opcode.SEND_ONLY_WITH_IMMEDIATE, Opcode.SEND_ONLY_WITH_INVALIDATE };
    /** The rest of a message nobody started, without the transport bits. */
    private static final int[] STRAY_OPCODES = {
        Opcode.SEND_MIDDLE, Opcode.SEND_LAST, Opcode.RDMA_WRITE_MIDDLE, Opcode.RDMA_WRITE_LAST,
        Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE };
    private static final int[] RESPONSE_OPCODES = {
        Opcode.RC_ACKNOWLEDGE, Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.RC_RDMA_READ_RESPONSE_ONLY,
        Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Opcode.RC_RDMA_READ_RESPONSE_LAST };

    private final Arena arena = Arena.ofShared();
    private final FrameSpec spec = new FrameSpec();
    private final PacketBuilder builder = new PacketBuilder();
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[16384]);
    private final UnsafeBuffer payloadSource = new UnsafeBuffer(new byte[8192]);
    private final WorkCompletion[] completions = new WorkCompletion[64];
    private final List<GuardedRegion> watched = new ArrayList<>();
    private final List<GuardedRegion> churning = new ArrayList<>();
    private final List<Target> targets = new ArrayList<>();
    /** The registrations live as far as the oracle knows, by R_Key. */
    private final Map<Integer, MemoryRegion> live = new HashMap<>();
    /** Every key ever handed out (stale ones included), with the segment it named: where the fuzzer aims. */
    private final Map<Integer, GuardedRegion> regionByKey = new HashMap<>();
    private final List<Integer> staleKeys = new ArrayList<>();
    private final InboundValidator sentValidator = new InboundValidator();
    private final RocePacket sent = new RocePacket();
    private final long[] allowedLo = new long[Target.WRITES + 1];
    private final long[] allowedHi = new long[Target.WRITES + 1];
    private int allowedCount;

    private long seed;
    private long frameIndex;
    private SplittableRandom random;
    private TwoNodeFabric fabric;
    private RnicDevice device;
    private Target legitimate;
    private int legitimateExpectedPsn;

    // the frame being built, for the oracle and the failure message
    private Target target;
    private int qpn;
    private int opcode;
    private int psn;
    private int expectedPsn;
    private boolean sourceIpv6;
    private int sourceIp;
    private int rKey;
    private long va;
    private long dmaLength;
    private long qKey;
    private int payload;

    // what the run did
    private long framesWithAllowedRange;
    private long readResponsesChecked;
    /** Whether the device's frames are checked: during the fuzzing, not the legitimate traffic afterwards. */
    private boolean checkSent;
    private long churnEvents;
    private long reconnects;

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void shouldChangeNoByteAHostilePeerMayNotWriteAndKeepLegitimateConnectionsWorking()
    {
        final long frames = Long.getLong(FRAMES_PROP_NAME, FRAMES_DEFAULT);
        seed = Long.getLong(SEED_PROP_NAME, SEED_DEFAULT);
        random = new SplittableRandom(seed);
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new WorkCompletion();
        }
        for (int i = 0; i < payloadSource.capacity(); i++)
        {
            payloadSource.putByte(i, (byte)random.nextInt());
        }
        fabric = new TwoNodeFabric(new LinkConditions(), seed);
        device = fabric.b();
        final Connection[] legit = Connection.rcPair(fabric, arena, 16384, PathMtu.MTU_1024);
        setUp(legit[1]);
        final SimulatedLink link = fabric.bToA();
        device.engine().sink(new PacketSink()
        {
            public void send(final DirectBuffer buffer, final int offset, final int length)
            {
                onSent(buffer, offset, length);
                link.send(buffer, offset, length);
            }

            public boolean hasRoom()
            {
                return link.hasRoom();
            }
        });

        checkSent = true;
        final long startNs = System.nanoTime();
        for (frameIndex = 0; frameIndex < frames; frameIndex++)
        {
            if (random.nextInt(32) == 0)
            {
                churn();
            }
            final int length = nextFrame();
            allow();
            try
            {
                device.engine().onFrame(frame, 0, length);
                fabric.step();
            }
            catch (final AssertionError ex)
            {
                throw ex; // the oracle's, from a frame the device sent
            }
            catch (final Throwable ex)
            {
                fail(describe() + ": an exception escaped the engine", ex);
            }
            check();
            tend();
        }
        final long wallMs = (System.nanoTime() - startNs) / 1_000_000;
        checkSent = false;
        System.out.printf("hostile peer: seed %d, %d frames in %d ms, %d with a range a correct RNIC may change, " +
            "%d READ response packets checked, %d (de)registrations, %d reconnections%n", seed, frames, wallMs,
            framesWithAllowedRange, readResponsesChecked, churnEvents, reconnects);

        for (final GuardedRegion region : watched)
        {
            assertEquals(-1L, region.firstBrokenGuard(), region.name + ": guard changed");
        }
        assertTrue(framesWithAllowedRange >= frames / 50, "the fuzzer sent too few executable requests to mean much");
        assertTrue(churnEvents >= frames / 64, "too few deregistrations");

        exercise(legit[0], legit[1]);
        final Connection[] fresh = Connection.rcPair(fabric, arena, 16384, PathMtu.MTU_1024);
        exercise(fresh[0], fresh[1]);
    }

    // ------------------------------------------------------------------------------------------------ set-up

    private void setUp(final Connection legit)
    {
        final ProtectionDomain pd1 = device.allocPd();
        final ProtectionDomain pd2 = device.allocPd();
        region("all", pd1, 2048, AccessFlags.ALL);
        region("write-only", pd1, 1024, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        region("read-only", pd1, 1024, AccessFlags.REMOTE_READ);
        region("no-remote-access", pd1, 512, AccessFlags.LOCAL_WRITE);
        region("other-pd", pd2, 1024, AccessFlags.ALL);
        region("legit-connection", legit.pd, 1024, AccessFlags.ALL);
        final GuardedRegion legitMemory = new GuardedRegion("legit connection's own", device, legit.mr);
        watched.add(legitMemory);
        registered(legitMemory, legit.mr);
        churning.add(region("churn-1", pd1, 1024, AccessFlags.ALL));
        churning.add(region("churn-2", pd1, 1536, AccessFlags.ALL));

        legitimate = new Target("legit RC", legit.qp, legit.pd, legit.recvCq, TwoNodeFabric.IP_A, AccessFlags.ALL, null,
            null);
        targets.add(legitimate);
        legitimateExpectedPsn = legitimate.context.ePsn;
        targets.add(target("RC", QpType.RC, pd1, AccessFlags.ALL, PathMtu.MTU_256));
        targets.add(target("RC of the other PD", QpType.RC, pd2, AccessFlags.ALL, PathMtu.MTU_1024));
        targets.add(target("RC without remote write", QpType.RC, pd1, AccessFlags.REMOTE_READ, PathMtu.MTU_512));
        targets.add(target("UC", QpType.UC, pd1, AccessFlags.REMOTE_WRITE, PathMtu.MTU_256));
        targets.add(target("UD", QpType.UD, pd1, 0, PathMtu.MTU_1024));
    }

    private GuardedRegion region(final String name, final ProtectionDomain pd, final int length, final int access)
    {
        final GuardedRegion region = new GuardedRegion(name, device, pd, arena, length, random);
        registered(region, region.register(access));
        watched.add(region);
        return region;
    }

    private void registered(final GuardedRegion region, final MemoryRegion mr)
    {
        live.put(mr.rKey(), mr);
        regionByKey.put(mr.rKey(), region);
    }

    private Target target(
        final String name, final QpType type, final ProtectionDomain pd, final int access, final PathMtu mtu)
    {
        final CompletionQueue cq = device.createCq(4096);
        final EngineQueuePair qp = device.createQp(new QpInitAttributes().type(type).pd(pd).cqs(cq, cq).capacity(64, 64));
        final GuardedRegion recvArea = region(name + " receive buffers", pd, RECV_AREA_BYTES, AccessFlags.LOCAL_WRITE);
        final ConnectParameters parameters = new ConnectParameters()
            .pathMtu(mtu)
            .timers(8, 7, 7, 1)
            .readAtomic(16, 16)
            .accessFlags(access);
        parameters.qkey = QKEY;
        parameters.addressVector.destinationIpv4(IP_C).destinationMac(MAC_C).sourceGidIndex(0).hopLimit(64);
        final Target target = new Target(name, qp, pd, cq, IP_C, access, parameters, recvArea);
        connect(target);
        return target;
    }

    private void connect(final Target t)
    {
        t.connect.remote(0xC0_0000 | t.qp.qpn(), random.nextInt(1 << 24)).localPsn(random.nextInt(1 << 24));
        t.connect.applyTo(t.qp);
        t.forget();
        t.messageKind = 0;
    }

    /** Keeps the fuzzed QPs usable: completions drained, receives posted, a QP in error connected again. */
    private void tend()
    {
        for (final Target t : targets)
        {
            if (t == legitimate)
            {
                continue; // left alone: the frames it gets come from foreign addresses and must all be dropped
            }
            while (t.cq.poll(completions, completions.length) > 0)
            {
                // what the fuzzed QPs complete says nothing the oracle needs; only the queue must not overflow
            }
            // in error, or now and then in the middle of anything: through RESET, which must forget the messages
            if (t.qp.state() == QpState.ERR || random.nextInt(1024) == 0)
            {
                connect(t);
                reconnects++;
            }
            final QpContext context = t.context;
            while (context.rq.producerPosition() - context.rqNext < RECEIVES_POSTED)
            {
                assertEquals(QueuePair.POST_OK, t.qp.postRecv(t.recv), () -> describe() + ": " + t.name +
                    " refuses a receive with " + (context.rq.producerPosition() - context.rqNext) + " posted");
            }
        }
    }

    private void churn()
    {
        churnEvents++;
        final GuardedRegion region = churning.get(random.nextInt(churning.size()));
        if (region.mr != null)
        {
            final int key = region.mr.rKey();
            live.remove(key);
            staleKeys.add(key);
            region.deregister();
        }
        else
        {
            registered(region, region.register(CHURN_ACCESS[random.nextInt(CHURN_ACCESS.length)]));
        }
    }

    // ------------------------------------------------------------------------------------------------ frames

    private int nextFrame()
    {
        target = random.nextInt(25) == 0 ? null : targets.get(random.nextInt(targets.size()));
        qpn = target == null ? unknownQpn() : target.qp.qpn();
        expectedPsn = target == null ? random.nextInt(1 << 24) : target.context.ePsn;
        final int mtu = target == null ? 1024 : target.context.mtuBytes;
        psn = pickPsn();
        rKey = pickKey();
        final GuardedRegion aimed = aim(rKey);
        dmaLength = pickLength(mtu, aimed.length());
        va = pickVa(aimed, dmaLength);
        qKey = random.nextInt(8) == 0 ? random.nextInt() & 0xFFFF_FFFFL : QKEY;
        boolean fromPeer = random.nextInt(10) < 6;
        if (random.nextInt(8) == 0 || target == null)
        {
            opcode = OPCODES[random.nextInt(OPCODES.length)];
            payload = Opcode.has(opcode, Opcode.FLAG_PAYLOAD) ? pickPayload(mtu) : 0;
        }
        else if (target.type == QpType.UD)
        {
            opcode = random.nextBoolean() ? Opcode.UD_SEND_ONLY : Opcode.UD_SEND_ONLY_WITH_IMMEDIATE;
            payload = pickPayload(mtu);
        }
        else if (target.messageKind != 0 && random.nextInt(4) != 0)
        {
            continueMessage(mtu);
            fromPeer = random.nextInt(10) != 0;
        }
        else
        {
            newRequest(mtu);
        }
        source(fromPeer);

        spec.bth(opcode, qpn, psn)
            .ackRequest(random.nextBoolean())
            .solicitedEvent(random.nextInt(8) == 0)
            .partitionKey(random.nextInt(32) == 0 ? random.nextInt(1 << 16) : 0xFFFF)
            .ecn(random.nextInt(16) == 0 ? Ecn.CE : Ecn.NOT_ECT)
            .reth(va, rKey & 0xFFFF_FFFFL, dmaLength)
            .atomicEth(va, rKey & 0xFFFF_FFFFL, random.nextLong(), random.nextLong())
            .aeth(random.nextInt(256), random.nextInt(1 << 24))
            .atomicAckEth(random.nextLong())
            .deth(qKey, random.nextInt(1 << 24))
            .immediate(random.nextInt())
            .ieth(pickKey() & 0xFFFF_FFFFL);
        return builder.build(frame, 0, spec, payloadSource, random.nextInt(payloadSource.capacity() - payload + 1),
            payload);
    }

    private int unknownQpn()
    {
        while (true)
        {
            final int candidate = random.nextInt(1 << 24);
            if (candidate != 0 && !device.engine().hasQp(candidate))
            {
                return candidate;
            }
        }
    }

    private void source(final boolean fromPeer)
    {
        final int choice = fromPeer && target != legitimate ? 0 : 1 + random.nextInt(3);
        sourceIpv6 = choice == 3;
        sourceIp = switch (choice)
        {
            case 0 -> target == null ? TwoNodeFabric.IP_A : target.peerIp;
            case 1 -> target == legitimate ? IP_C : TwoNodeFabric.IP_A;
            default -> 0xC0A8_0000 | random.nextInt(1 << 16); // 192.168.x.y: nobody's
        };
        spec.ethernet(TwoNodeFabric.MAC_B, sourceIp == TwoNodeFabric.IP_A ? TwoNodeFabric.MAC_A : MAC_C);
        if (sourceIpv6)
        {
            spec.ipv6(GID_HIGH, random.nextLong(), GID_HIGH, GID_LOW_B);
        }
        else
        {
            spec.ipv4(sourceIp, TwoNodeFabric.IP_B);
        }
    }

    /** A request of the QP's transport; WRITE and SEND FIRST start a message the next frames may continue. */
    private void newRequest(final int mtu)
    {
        final int transport = target.type == QpType.RC ? Opcode.TRANSPORT_RC : Opcode.TRANSPORT_UC;
        final int choice = random.nextInt(target.type == QpType.RC ? 11 : 7);
        switch (choice)
        {
            case 0 ->
            {
                opcode = transport | SEND_ONLY_OPCODES[random.nextInt(target.type == QpType.RC ? 3 : 2)];
                payload = pickPayload(mtu);
            }
            case 1 ->
            {
                opcode = transport | Opcode.SEND_FIRST;
                payload = random.nextInt(8) == 0 ? pickPayload(mtu) : mtu;
                target.messageKind = Opcode.FLAG_SEND;
                target.messageRemaining = random.nextInt(RECV_AREA_BYTES);
            }
            case 2 ->
            {
                opcode = transport |
                    (random.nextBoolean() ? Opcode.RDMA_WRITE_ONLY : Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE);
                payload = random.nextInt(4) == 0 || dmaLength > mtu + 512 ? pickPayload(mtu) : (int)dmaLength;
            }
            case 3, 4, 5 ->
            {
                opcode = transport | Opcode.RDMA_WRITE_FIRST;
                aimMessage(mtu);
                payload = random.nextInt(8) == 0 ? pickPayload(mtu) : mtu;
                target.messageKind = Opcode.FLAG_WRITE;
                target.messageRemaining = dmaLength - payload;
            }
            case 6 ->
            {
                opcode = transport | STRAY_OPCODES[random.nextInt(STRAY_OPCODES.length)];
                payload = pickPayload(mtu);
            }
            case 7 ->
            {
                opcode = Opcode.RC_RDMA_READ_REQUEST;
                if (random.nextBoolean())
                {
                    aimMessage(mtu);
                }
                payload = 0;
            }
            case 8 ->
            {
                opcode = random.nextBoolean() ? Opcode.RC_FETCH_ADD : Opcode.RC_COMPARE_SWAP;
                va = random.nextInt(8) == 0 ? va : va & ~7L;
                payload = 0;
            }
            default ->
            {
                opcode = RESPONSE_OPCODES[random.nextInt(RESPONSE_OPCODES.length)];
                payload = Opcode.has(opcode, Opcode.FLAG_PAYLOAD) ? pickPayload(mtu) : 0;
            }
        }
    }

    /** R_Key, address and length of a message of several packets, mostly at a live region (often a churning one). */
    private void aimMessage(final int mtu)
    {
        final GuardedRegion aimed = random.nextBoolean() ? churning.get(random.nextInt(churning.size())) : aim(rKey);
        if (aimed.mr != null && random.nextInt(4) != 0)
        {
            rKey = aimed.mr.rKey();
        }
        dmaLength = random.nextInt(8) == 0 || aimed.length() <= mtu ? pickLength(mtu, aimed.length()) :
            mtu + 1 + random.nextInt((int)aimed.length() - mtu);
        va = random.nextInt(8) == 0 || dmaLength > aimed.length() ? pickVa(aimed, dmaLength) :
            aimed.start() + random.nextLong(aimed.length() - dmaLength + 1);
    }

    /** The next packet of the message the QP is in: MIDDLE or LAST, sometimes with the wrong size. */
    private void continueMessage(final int mtu)
    {
        final int transport = target.type == QpType.RC ? Opcode.TRANSPORT_RC : Opcode.TRANSPORT_UC;
        final boolean write = target.messageKind == Opcode.FLAG_WRITE;
        final boolean last = target.messageRemaining <= mtu;
        if (last)
        {
            opcode = transport | (write ?
                (random.nextBoolean() ? Opcode.RDMA_WRITE_LAST : Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE) :
                (random.nextBoolean() ? Opcode.SEND_LAST : Opcode.SEND_LAST_WITH_IMMEDIATE));
            payload = (int)Math.max(0, target.messageRemaining);
            target.messageKind = 0;
        }
        else
        {
            opcode = transport | (write ? Opcode.RDMA_WRITE_MIDDLE : Opcode.SEND_MIDDLE);
            payload = mtu;
            target.messageRemaining -= mtu;
        }
        if (random.nextInt(10) == 0)
        {
            payload = pickPayload(mtu);
        }
    }

    private int pickPsn()
    {
        final int choice = random.nextInt(10);
        if (choice < 7)
        {
            return expectedPsn;
        }
        return choice < 9 ? (expectedPsn + random.nextInt(-4, 5)) & 0xFF_FFFF : random.nextInt(1 << 24);
    }

    private int pickKey()
    {
        final int choice = random.nextInt(10);
        if (choice < 6)
        {
            final GuardedRegion region = random.nextBoolean() ? churning.get(random.nextInt(churning.size())) :
                watched.get(random.nextInt(watched.size()));
            if (region.mr != null)
            {
                return region.mr.rKey();
            }
        }
        if (choice == 6 && !staleKeys.isEmpty())
        {
            return staleKeys.get(random.nextInt(staleKeys.size()));
        }
        if (choice == 7)
        {
            final GuardedRegion region = watched.get(random.nextInt(watched.size()));
            if (region.mr != null)
            {
                return region.mr.rKey() ^ (1 << random.nextInt(32));
            }
        }
        return random.nextInt();
    }

    private GuardedRegion aim(final int key)
    {
        final GuardedRegion region = regionByKey.get(key);
        return region != null ? region : watched.get(random.nextInt(watched.size()));
    }

    private long pickLength(final int mtu, final long regionLength)
    {
        return switch (random.nextInt(8))
        {
            case 0 -> 0;
            case 1 -> 1 + random.nextInt(mtu);
            case 2 -> mtu;
            case 3 -> mtu + 1 + random.nextInt(mtu);
            case 4, 5 -> 1 + random.nextLong(regionLength);
            case 6 -> regionLength;
            default -> random.nextLong(1L << 32);
        };
    }

    private long pickVa(final GuardedRegion region, final long length)
    {
        final long start = region.start();
        final long size = region.length();
        return switch (random.nextInt(8))
        {
            case 0, 1, 2, 3 -> start + (length <= size ? random.nextLong(size - length + 1) : 0);
            case 4 -> start - 1 - random.nextInt(GuardedRegion.GUARD_BYTES);
            case 5 -> start + size - length + 1 + random.nextInt(GuardedRegion.GUARD_BYTES);
            case 6 -> random.nextLong();
            default -> start + size;
        };
    }

    private int pickPayload(final int mtu)
    {
        return switch (random.nextInt(6))
        {
            case 0 -> 0;
            case 1, 2 -> 1 + random.nextInt(mtu - 1);
            case 3 -> mtu;
            case 4 -> mtu + 1 + random.nextInt(512);
            default -> random.nextInt(4097);
        };
    }

    // ------------------------------------------------------------------------------------------------ oracle

    /** The ranges a correct RNIC may change on receiving the frame just built, from the state before it. */
    private void allow()
    {
        allowedCount = 0;
        final Target t = target;
        if (t == null || Opcode.transport(opcode) != Target.transportOf(t.type) ||
            !Opcode.has(opcode, Opcode.FLAG_REQUEST))
        {
            return;
        }
        final QpState state = t.qp.state();
        final boolean fromPeer = t.type == QpType.UD || !sourceIpv6 && sourceIp == t.peerIp;
        if ((state != QpState.RTR && state != QpState.RTS) || !fromPeer ||
            (t.type == QpType.RC && psn != expectedPsn) || (t.type != QpType.UD && payload > t.context.mtuBytes))
        {
            return;
        }
        if (Opcode.has(opcode, Opcode.FLAG_SEND))
        {
            if (t.recvArea != null && (t.type != QpType.UD || qKey == QKEY))
            {
                allow(t.recvArea.start(), t.recvArea.length());
            }
        }
        else if (Opcode.has(opcode, Opcode.FLAG_WRITE))
        {
            if (Opcode.hasHeader(opcode, Opcode.RETH))
            {
                final MemoryRegion region = grants(t, AccessFlags.REMOTE_WRITE, dmaLength);
                if (region != null)
                {
                    allow(va, dmaLength);
                    if (Opcode.has(opcode, Opcode.FLAG_FIRST))
                    {
                        t.addWrite(region, va, dmaLength);
                    }
                }
            }
            else
            {
                for (int i = 0; i < Target.WRITES; i++)
                {
                    final MemoryRegion region = t.writes[i];
                    if (region != null && live.get(region.rKey()) == region)
                    {
                        allow(t.writeVa[i], t.writeLength[i]);
                    }
                }
            }
        }
        else if (opcode == Opcode.RC_RDMA_READ_REQUEST)
        {
            final MemoryRegion region = grants(t, AccessFlags.REMOTE_READ, dmaLength);
            if (region != null)
            {
                t.addRead(region, psn, va, dmaLength);
            }
        }
        else if (Opcode.has(opcode, Opcode.FLAG_ATOMIC) && (va & 7) == 0 &&
            grants(t, AccessFlags.REMOTE_ATOMIC, Long.BYTES) != null)
        {
            allow(va, Long.BYTES);
        }
        if (allowedCount > 0)
        {
            framesWithAllowedRange++;
        }
    }

    private void allow(final long address, final long length)
    {
        allowedLo[allowedCount] = address;
        allowedHi[allowedCount] = address + length;
        allowedCount++;
    }

    /** The live registration the frame's R_Key names if it lets this QP have {@code access} to its range. */
    private MemoryRegion grants(final Target t, final int access, final long length)
    {
        final MemoryRegion region = live.get(rKey);
        if (region == null || region.pd() != t.pd || (region.access() & access) == 0 || (t.accessFlags & access) == 0 ||
            length <= 0 || va < region.address() || va - region.address() > region.length() - length)
        {
            return null;
        }
        return region;
    }

    private void check()
    {
        // its peer is idle: the frames it gets are all from foreign addresses, and must leave no trace
        if (legitimate.qp.state() != QpState.RTS || legitimate.context.ePsn != legitimateExpectedPsn)
        {
            fail(describe() + String.format(": the legitimate connection's QP went from RTS expecting PSN 0x%06x " +
                "to %s expecting 0x%06x", legitimateExpectedPsn, legitimate.qp.state(), legitimate.context.ePsn));
        }
        for (final GuardedRegion region : watched)
        {
            final long changed = region.changedOutside(allowedLo, allowedHi, allowedCount);
            if (changed != Long.MIN_VALUE)
            {
                final String where = changed < 0 || changed >= region.length() ? "guard byte" : "byte";
                fail(describe() + ": " + where + " " + changed + " of region '" + region.name + "' (" +
                    (region.mr == null ? "deregistered" : AccessFlags.toString(region.mr.access())) +
                    ") changed; allowed ranges " + allowedCount);
            }
        }
    }

    /**
     * Every READ response packet the device sends must carry the bytes of a READ a correct RNIC executes (see
     * {@link #allow}), from the part of its range the packet's PSN names, of a registration still live: a response
     * with any other bytes discloses memory the peer may not read.
     */
    private void onSent(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!checkSent)
        {
            return;
        }
        if (sentValidator.validate(buffer, offset, length, sent) != DropReason.NONE)
        {
            fail(describe() + ": the device sent a frame that does not validate");
        }
        final int sentOpcode = sent.opcode();
        final int bytes = sent.payloadLength();
        if (!Opcode.has(sentOpcode, Opcode.FLAG_RESPONSE) || !Opcode.has(sentOpcode, Opcode.FLAG_READ) || bytes == 0)
        {
            return;
        }
        readResponsesChecked++;
        for (final Target t : targets)
        {
            if (t.type == QpType.RC && t.context.destQpn == sent.destinationQp() &&
                t.matchesRead(live, sent.psn(), buffer, sent.payloadOffset(), bytes))
            {
                return;
            }
        }
        fail(describe() + String.format(": the device sent %s PSN 0x%06x to QPN 0x%x with %d bytes no legitimate " +
            "READ asked for", Opcode.name(sentOpcode), sent.psn(), sent.destinationQp(), bytes));
    }

    private String describe()
    {
        final long index = frameIndex;
        return String.format("seed %d frame %d (-D%s=%d -D%s=%d): %s to QPN 0x%x (%s) from %s, PSN 0x%06x " +
            "(expected 0x%06x), R_Key 0x%08x VA 0x%x DMA length %d, payload %d", seed, index, SEED_PROP_NAME, seed,
            FRAMES_PROP_NAME, index + 1, Opcode.name(opcode), qpn, target == null ? "unknown" : target.name,
            sourceIpv6 ? "IPv6" : String.format("%d.%d.%d.%d", sourceIp >>> 24, sourceIp >>> 16 & 0xFF,
            sourceIp >>> 8 & 0xFF, sourceIp & 0xFF), psn, expectedPsn, rKey, va, dmaLength, payload);
    }

    // ------------------------------------------------------------------------------------------------ afterwards

    /** WRITE, READ, SEND and FETCH_ADD from {@code a} to {@code b}, every byte verified. */
    private void exercise(final Connection a, final Connection b)
    {
        RcOperationsTest.fill(a, 0, 3000, 7);
        final SendWorkRequest write = new SendWorkRequest();
        write.opcode = WrOpcode.RDMA_WRITE;
        write.sgl.add(a.mr.address(), 3000, a.mr.lKey());
        write.remoteAddress = b.mr.address();
        write.rKey = b.mr.rKey();
        assertEquals(QueuePair.POST_OK, a.qp.postSend(write));
        awaitSuccess(a, a.sendCq);
        RcOperationsTest.assertBytes(b, 0, 3000, 7);

        RcOperationsTest.fill(b, 4096, 3000, 8);
        final SendWorkRequest read = new SendWorkRequest();
        read.opcode = WrOpcode.RDMA_READ;
        read.sgl.add(a.mr.address() + 8192, 3000, a.mr.lKey());
        read.remoteAddress = b.mr.address() + 4096;
        read.rKey = b.mr.rKey();
        assertEquals(QueuePair.POST_OK, a.qp.postSend(read));
        awaitSuccess(a, a.sendCq);
        RcOperationsTest.assertBytes(a, 8192, 3000, 8);

        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(b.mr.address() + 12288, 1500, b.mr.lKey());
        assertEquals(QueuePair.POST_OK, b.qp.postRecv(recv));
        RcOperationsTest.fill(a, 12288, 1500, 9);
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(a.mr.address() + 12288, 1500, a.mr.lKey());
        assertEquals(QueuePair.POST_OK, a.qp.postSend(send));
        awaitSuccess(a, a.sendCq);
        assertEquals(1500, awaitSuccess(b, b.recvCq).byteLength());
        RcOperationsTest.assertBytes(b, 12288, 1500, 9);

        b.memory.set(ValueLayout.JAVA_LONG, 16000, 41L);
        final SendWorkRequest add = new SendWorkRequest();
        add.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
        add.compareAdd = 1;
        add.sgl.add(a.mr.address() + 16000, 8, a.mr.lKey());
        add.remoteAddress = b.mr.address() + 16000;
        add.rKey = b.mr.rKey();
        assertEquals(QueuePair.POST_OK, a.qp.postSend(add));
        awaitSuccess(a, a.sendCq);
        assertEquals(41L, a.memory.get(ValueLayout.JAVA_LONG, 16000));
        assertEquals(42L, b.memory.get(ValueLayout.JAVA_LONG, 16000));
    }

    private WorkCompletion awaitSuccess(final Connection c, final CompletionQueue cq)
    {
        final boolean done = fabric.runUntil(() -> cq.poll(c.completions, 1) == 1, SECOND_NS);
        assertTrue(done, "no completion within a simulated second on QP " + c.qp.qpn() + " (" + c.qp.state() + ")");
        assertEquals(WcStatus.SUCCESS, c.completions[0].status(), "QP " + c.qp.qpn());
        return c.completions[0];
    }

    private static int[] definedOpcodes()
    {
        final List<Integer> defined = new ArrayList<>();
        for (int opcode = 0; opcode < 256; opcode++)
        {
            if (Opcode.mask(opcode) != 0)
            {
                defined.add(opcode);
            }
        }
        return defined.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A QP of the device under attack, with what the fuzzer and the oracle remember of it. */
    private static final class Target
    {
        static final int WRITES = 4;

        final String name;
        final EngineQueuePair qp;
        final QpContext context;
        final QpType type;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final int peerIp;
        final int accessFlags;
        final ConnectParameters connect;
        final GuardedRegion recvArea;
        final RecvWorkRequest recv = new RecvWorkRequest();
        /** The hostile peer's message in progress ({@link Opcode#FLAG_SEND}, {@link Opcode#FLAG_WRITE} or 0). */
        int messageKind;
        long messageRemaining;
        /** The last RDMA WRITE FIRSTs the oracle accepted: the ranges their MIDDLE/LAST may write. */
        final MemoryRegion[] writes = new MemoryRegion[WRITES];
        final long[] writeVa = new long[WRITES];
        final long[] writeLength = new long[WRITES];
        int writeNext;
        /** The last RDMA READs the oracle accepted (as many as the responder remembers): what responses may carry. */
        final MemoryRegion[] reads = new MemoryRegion[QpContext.REPLAY_ENTRIES];
        final int[] readPsn = new int[QpContext.REPLAY_ENTRIES];
        final long[] readVa = new long[QpContext.REPLAY_ENTRIES];
        final long[] readLength = new long[QpContext.REPLAY_ENTRIES];
        int readNext;

        Target(
            final String name,
            final EngineQueuePair qp,
            final ProtectionDomain pd,
            final CompletionQueue cq,
            final int peerIp,
            final int accessFlags,
            final ConnectParameters connect,
            final GuardedRegion recvArea)
        {
            this.name = name;
            this.qp = qp;
            this.context = qp.context();
            this.type = qp.type();
            this.pd = pd;
            this.cq = cq;
            this.peerIp = peerIp;
            this.accessFlags = accessFlags;
            this.connect = connect;
            this.recvArea = recvArea;
            if (recvArea != null)
            {
                recv.sgl.add(recvArea.mr);
            }
        }

        void addWrite(final MemoryRegion region, final long va, final long length)
        {
            writes[writeNext] = region;
            writeVa[writeNext] = va;
            writeLength[writeNext] = length;
            writeNext = (writeNext + 1) % WRITES;
        }

        void forget()
        {
            Arrays.fill(writes, null);
            Arrays.fill(reads, null);
        }

        void addRead(final MemoryRegion region, final int psn, final long va, final long length)
        {
            reads[readNext] = region;
            readPsn[readNext] = psn;
            readVa[readNext] = va;
            readLength[readNext] = length;
            readNext = (readNext + 1) % reads.length;
        }

        /** Whether a READ response packet with this PSN and payload is one of a READ this QP was asked for. */
        boolean matchesRead(
            final Map<Integer, MemoryRegion> live,
            final int psn,
            final DirectBuffer buffer,
            final int payloadOffset,
            final int bytes)
        {
            final int mtu = context.mtuBytes;
            for (int i = 0; i < reads.length; i++)
            {
                final MemoryRegion region = reads[i];
                if (region == null || live.get(region.rKey()) != region)
                {
                    continue;
                }
                final long packet = (psn - readPsn[i]) & 0xFF_FFFFL;
                final long offset = packet * mtu;
                if (offset >= readLength[i] || offset + bytes > readLength[i])
                {
                    continue;
                }
                final long start = readVa[i] + offset - region.address();
                boolean same = true;
                for (int b = 0; b < bytes && same; b++)
                {
                    same = region.segment().get(ValueLayout.JAVA_BYTE, start + b) == buffer.getByte(payloadOffset + b);
                }
                if (same)
                {
                    return true;
                }
            }
            return false;
        }

        static int transportOf(final QpType type)
        {
            return switch (type)
            {
                case RC -> Opcode.TRANSPORT_RC;
                case UC -> Opcode.TRANSPORT_UC;
                case UD -> Opcode.TRANSPORT_UD;
            };
        }
    }
}
