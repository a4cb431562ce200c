package io.rnic.example;

import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What an embedder writes, compiled against the installed artifacts only: two endpoints in one JVM joined by
 * in-memory ports (no interface, no privileges), an RC QP on each, an RDMA WRITE of 1 MiB from A into B and an RDMA
 * READ of it back from B into A, each checked byte for byte. Prints one line and exits 0, or names what went wrong
 * and exits 1.
 */
public final class WriteReadExample
{
    private static final int MESSAGE_BYTES = 1 << 20;
    private static final int REGION_BYTES = 2 * MESSAGE_BYTES;
    private static final long MAC_A = 0x02_00_00_00_00_0AL;
    private static final long MAC_B = 0x02_00_00_00_00_0BL;
    private static final byte[] IP_A = { 10, 10, 0, 1 };
    private static final byte[] IP_B = { 10, 10, 0, 2 };
    private static final int MTU_BYTES = 4096;
    private static final int RING_BYTES = 1 << 22;
    private static final long COMPLETION_TIMEOUT_NS = 10_000_000_000L;

    private WriteReadExample()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final InMemoryPort[] ports = InMemoryPort.pair(MAC_A, MAC_B, MTU_BYTES, RING_BYTES);
        // a yielding engine thread: the example may share a small machine; in memory the UDP port need not be held
        final EndpointOptions options = EndpointOptions.defaults()
            .withIdleStrategy("yield")
            .withAnswerNeighbours(true)
            .withHoldRocePort(false);

        try (Arena arena = Arena.ofShared();
            Endpoint a = Endpoint.start(ports[0], localPort(MAC_A, IP_A), options);
            Endpoint b = Endpoint.start(ports[1], localPort(MAC_B, IP_B), options))
        {
            final Side sideA = new Side(a, arena);
            final Side sideB = new Side(b, arena);
            final int psnA = ThreadLocalRandom.current().nextInt(1 << 24);
            final int psnB = ThreadLocalRandom.current().nextInt(1 << 24);
            sideA.connect(sideB, psnA, psnB, InetAddress.getByAddress(IP_B));
            sideB.connect(sideA, psnB, psnA, InetAddress.getByAddress(IP_A));

            for (int i = 0; i < MESSAGE_BYTES; i++)
            {
                sideA.memory.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 7 + 3 + (i >>> 12)));
            }

            final long startNs = System.nanoTime();
            // WRITE A[0, 1 MiB) -> B[0, 1 MiB)
            sideA.post(WrOpcode.RDMA_WRITE, 1, 0, sideB.mr.address(), sideB.mr.rKey());
            sideA.awaitSend();
            final long writeMismatch = sideB.memory.asSlice(0, MESSAGE_BYTES)
                .mismatch(sideA.memory.asSlice(0, MESSAGE_BYTES));
            check(writeMismatch == -1, "RDMA WRITE: B differs from A at byte " + writeMismatch);

            // READ B[0, 1 MiB) -> A[1 MiB, 2 MiB)
            sideA.post(WrOpcode.RDMA_READ, 2, MESSAGE_BYTES, sideB.mr.address(), sideB.mr.rKey());
            sideA.awaitSend();
            final long readMismatch = sideA.memory.asSlice(MESSAGE_BYTES, MESSAGE_BYTES)
                .mismatch(sideB.memory.asSlice(0, MESSAGE_BYTES));
            check(readMismatch == -1, "RDMA READ: A differs from B at byte " + readMismatch);
            final long elapsedUs = (System.nanoTime() - startNs) / 1000;

            System.out.println("rnic example: RDMA WRITE and READ of " + MESSAGE_BYTES +
                " bytes between two in-memory endpoints, byte-exact, in " + elapsedUs + " us");
        }
    }

    private static LocalPort localPort(final long mac, final byte[] ipv4)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(MTU_BYTES);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(mac));    // GID 0: link-local
        port.addIpv4((ipv4[0] & 0xFF) << 24 | (ipv4[1] & 0xFF) << 16 | (ipv4[2] & 0xFF) << 8 | ipv4[3] & 0xFF);
        return port;                                                           // GID 1: RoCEv2 over IPv4
    }

    private static void check(final boolean condition, final String failure)
    {
        if (!condition)
        {
            System.err.println("rnic example: " + failure);
            System.exit(1);
        }
    }

    /**
     * One endpoint's resources: a PD, a CQ for sends, an RC QP and a 2 MiB region it registers with every access
     * right, so that it can be written and read remotely.
     */
    private static final class Side
    {
        private final Endpoint endpoint;
        private final CompletionQueue sendCq;
        private final QueuePair qp;
        private final MemorySegment memory;
        private final MemoryRegion mr;
        private final SendWorkRequest request = new SendWorkRequest();
        private final WorkCompletion[] completions = { new WorkCompletion() };

        Side(final Endpoint endpoint, final Arena arena)
        {
            this.endpoint = endpoint;
            final ProtectionDomain pd = endpoint.device().allocPd();
            sendCq = endpoint.device().createCq(64);
            final CompletionQueue recvCq = endpoint.device().createCq(64);
            qp = endpoint.device().createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(sendCq, recvCq));
            memory = arena.allocate(REGION_BYTES, 4096);
            mr = endpoint.device().registerMemoryRegion(pd, memory, AccessFlags.ALL);
        }

        /**
         * RESET to RTS towards the peer's QP: the peer's MAC is resolved by ARP over the port, as it would be on an
         * interface; the QPNs and PSNs are exchanged by hand here (in one JVM, by reading them).
         */
        void connect(final Side peer, final int localPsn, final int peerPsn, final InetAddress peerAddress)
        {
            final int sgidIndex = 1;
            final long peerMac = endpoint.resolveMac(peerAddress, sgidIndex, Duration.ofSeconds(5));
            final ConnectParameters parameters = new ConnectParameters()
                .remote(peer.qp.qpn(), peerPsn)
                .localPsn(localPsn)
                .pathMtu(PathMtu.forEthernetMtu(MTU_BYTES)) // 2048: a 4096-byte payload and headers exceed 4096
                .readAtomic(4, 4);
            parameters.addressVector
                .destinationIpv4((int)InterfaceAddresses.gidOf(peerAddress)[1])
                .destinationMac(peerMac)
                .sourceGidIndex(sgidIndex);
            parameters.applyTo(qp);
        }

        void post(
            final int opcode, final long wrId, final long localOffset, final long remoteAddress, final int rKey)
        {
            request.sgl.clear();
            request.opcode = opcode;
            request.wrId = wrId;
            request.sgl.add(mr.address() + localOffset, MESSAGE_BYTES, mr.lKey());
            request.remoteAddress = remoteAddress;
            request.rKey = rKey;
            final int result = qp.postSend(request);
            check(result == 0, WrOpcode.name(opcode) + ": postSend returned " + result);
        }

        void awaitSend()
        {
            final long deadlineNs = System.nanoTime() + COMPLETION_TIMEOUT_NS;
            while (sendCq.poll(completions, 1) == 0)
            {
                check(System.nanoTime() < deadlineNs, "no completion within 10 s; counters:\n" +
                    endpoint.countersReport());
                Thread.yield();
            }
            final WorkCompletion completion = completions[0];
            check(completion.status() == WcStatus.SUCCESS,
                "work request " + completion.wrId() + " completed with " + completion.status());
        }
    }
}
