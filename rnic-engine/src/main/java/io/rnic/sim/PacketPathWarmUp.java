package io.rnic.sim;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs each kind of operation once between the two throwaway devices of a {@link TwoNodeFabric}, so that the JVM has loaded, linked
 * and initialised the packet path before the first real packet. Without it the first packets of a process are built
 * and checked in code that has never run, the ICRC's Vector API set-up above all: in a fresh JVM the first frame's
 * build and check took 400 to 600 ms (2 loaded cores), and about 1 ms after this warm-up (which took 370 to 690 ms);
 * {@code write-lat}'s engine thread spent 90 to 160 ms on the first WRITE and the peer's 110 ms on receiving it. The
 * sender's local ACK timer (14: 67 ms) then expired before the first ACK came back, and a clean link showed a
 * retransmission.
 * <p>
 * The devices are private to the run: no frame reaches a port, the real device's counters and QP numbers are
 * untouched, and the fabric's virtual clock moves only a few microseconds: no timer fires. Control path; the first call does the work, the
 * later ones return at once.
 */
public final class PacketPathWarmUp
{
    private static final AtomicBoolean DONE = new AtomicBoolean();
    private static final long IPV6_PREFIX = 0xFD00_0000_0000_0000L;
    /** Two packets and a bit at MTU 1024: FIRST, MIDDLE and LAST opcodes (and a multi-packet READ response). */
    private static final int LARGE_BYTES = 2500;
    private static final int SMALL_BYTES = 64;
    private static final int REGION_BYTES = 64 * 1024;
    private static final int MAX_STEPS = 100_000;

    private PacketPathWarmUp()
    {
    }

    /** Warms the packet path once per JVM; returns at once when it is warm already. */
    public static void ensure()
    {
        if (DONE.compareAndSet(false, true))
        {
            run();
        }
    }

    /**
     * Runs every operation once over IPv4 and once over IPv6: RC WRITE (with and without immediate, one and several
     * packets), READ, SEND (with immediate), FETCH_ADD and CMP_SWAP, then UC and UD SENDs.
     *
     * @return the operations completed, each successfully.
     * @throws IllegalStateException when one did not complete successfully: the engine is broken.
     */
    static int run()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().delayNs(0), 1);
        final RnicDevice a = fabric.a();
        final RnicDevice b = fabric.b();
        int completed = 0;
        try (Arena arena = Arena.ofConfined())
        {
            for (final boolean ipv6 : new boolean[]{ false, true })
            {
                for (final QpType type : QpType.values())
                {
                    final Side sideA = new Side(a, arena, type);
                    final Side sideB = new Side(b, arena, type);
                    sideA.connect(sideB, ipv6, TwoNodeFabric.MAC_B, TwoNodeFabric.IP_B, 0xB);
                    sideB.connect(sideA, ipv6, TwoNodeFabric.MAC_A, TwoNodeFabric.IP_A, 0xA);
                    completed += operations(type, sideA, sideB, fabric);
                    a.destroyQp(sideA.qp);
                    b.destroyQp(sideB.qp);
                }
            }
        }
        final long retransmitted = a.engine().counters().get(TransportCounter.RETRANSMITTED_PACKETS) +
            b.engine().counters().get(TransportCounter.RETRANSMITTED_PACKETS);
        if (retransmitted != 0)
        {
            throw new IllegalStateException("packet path warm-up: " + retransmitted + " packets retransmitted in memory");
        }
        return completed;
    }

    private static int operations(final QpType type, final Side a, final Side b, final TwoNodeFabric fabric)
    {
        int completed = 0;
        if (type == QpType.RC)
        {
            completed += a.run(WrOpcode.RDMA_WRITE, SMALL_BYTES, b, fabric);
            completed += a.run(WrOpcode.RDMA_WRITE, LARGE_BYTES, b, fabric);
            completed += a.run(WrOpcode.RDMA_WRITE_WITH_IMM, SMALL_BYTES, b, fabric);
            completed += a.run(WrOpcode.RDMA_READ, SMALL_BYTES, b, fabric);
            completed += a.run(WrOpcode.RDMA_READ, LARGE_BYTES, b, fabric);
            completed += a.run(WrOpcode.SEND, LARGE_BYTES, b, fabric);
            completed += a.run(WrOpcode.ATOMIC_FETCH_AND_ADD, Long.BYTES, b, fabric);
            completed += a.run(WrOpcode.ATOMIC_CMP_AND_SWP, Long.BYTES, b, fabric);
        }
        completed += a.run(WrOpcode.SEND_WITH_IMM, SMALL_BYTES, b, fabric);
        return completed;
    }

    /** A QP of one type with its CQs and a registered region: send area first, receive area after it. */
    private static final class Side
    {
        private final QpType type;
        private final CompletionQueue sendCq;
        private final CompletionQueue recvCq;
        private final QueuePair qp;
        private final MemoryRegion mr;
        private final WorkCompletion[] completions = { new WorkCompletion() };
        private final SendWorkRequest send = new SendWorkRequest();
        private final RecvWorkRequest recv = new RecvWorkRequest();

        Side(final RnicDevice device, final Arena arena, final QpType type)
        {
            this.type = type;
            final ProtectionDomain pd = device.allocPd();
            sendCq = device.createCq(16);
            recvCq = device.createCq(16);
            qp = device.createQp(new QpInitAttributes().type(type).pd(pd).cqs(sendCq, recvCq).capacity(16, 16));
            final MemorySegment memory = arena.allocate(REGION_BYTES, 4096);
            mr = device.registerMemoryRegion(pd, memory, AccessFlags.ALL);
        }

        /** Connects to {@code peer} over IPv4 (GID 0) or IPv6 (GID 1, fd00::{@code peerIpv6Low}). */
        void connect(
            final Side peer, final boolean ipv6, final long peerMac, final int peerIpv4, final long peerIpv6Low)
        {
            final ConnectParameters parameters = new ConnectParameters()
                .remote(peer.qp.qpn(), 0x100)
                .localPsn(0x100)
                .pathMtu(PathMtu.MTU_1024)
                .readAtomic(1, 1);
            parameters.addressVector.destinationMac(peerMac).sourceGidIndex(ipv6 ? 1 : 0).hopLimit(64);
            if (ipv6)
            {
                parameters.addressVector.destinationGid(IPV6_PREFIX, peerIpv6Low);
            }
            else
            {
                parameters.addressVector.destinationIpv4(peerIpv4);
            }
            parameters.applyTo(qp);
            send.udAddress.copyFrom(parameters.addressVector);
        }

        /** Posts one operation to {@code peer} and steps the fabric until its completions are in; returns 1. */
        int run(final int opcode, final int bytes, final Side peer, final TwoNodeFabric fabric)
        {
            final boolean receives = opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM ||
                opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
            if (receives)
            {
                peer.recv.sgl.clear();
                peer.recv.sgl.add(peer.mr.address() + REGION_BYTES / 2, REGION_BYTES / 2, peer.mr.lKey());
                check(peer.qp.postRecv(peer.recv), opcode, "post the receive");
            }
            send.opcode = opcode;
            send.sendFlags = SendFlags.SIGNALED;
            send.sgl.clear();
            send.sgl.add(mr.address(), bytes, mr.lKey());
            send.remoteAddress = peer.mr.address() + REGION_BYTES / 2;
            send.rKey = peer.mr.rKey();
            send.compareAdd = 0;
            send.swap = 1;
            send.udRemoteQpn = peer.qp.qpn();
            send.udRemoteQkey = -1;
            check(qp.postSend(send), opcode, "post");
            boolean sent = false;
            boolean received = !receives;
            for (int step = 0; step < MAX_STEPS && !(sent && received); step++)
            {
                fabric.step();
                sent |= poll(sendCq, opcode);
                received |= poll(peer.recvCq, opcode);
            }
            if (!sent || !received)
            {
                throw new IllegalStateException("packet path warm-up: " + type + " " + WrOpcode.name(opcode) +
                    " of " + bytes + " bytes did not complete");
            }
            return 1;
        }

        private boolean poll(final CompletionQueue cq, final int opcode)
        {
            if (cq.poll(completions, 1) == 0)
            {
                return false;
            }
            if (completions[0].status() != WcStatus.SUCCESS)
            {
                throw new IllegalStateException("packet path warm-up: " + type + " " + WrOpcode.name(opcode) +
                    " completed with " + completions[0].status());
            }
            return true;
        }

        private void check(final int status, final int opcode, final String what)
        {
            if (status != 0)
            {
                throw new IllegalStateException("packet path warm-up: could not " + what + " " + type + " " +
                    WrOpcode.name(opcode) + ": " + status);
            }
        }
    }
}
