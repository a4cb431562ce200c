package io.rnic.example;

import io.rnic.client.DriverContext;
import io.rnic.datapath.cm.RdmaCm;
import io.rnic.datapath.cm.RdmaConnection;
import io.rnic.datapath.cm.RdmaListener;
import io.rnic.datapath.endpoint.InMemoryContexts;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What an embedder writes, compiled against the installed artifacts only: an RDMA WRITE of 1 MiB from A into B and an
 * RDMA READ of it back from B into A, each checked byte for byte, written against {@link RnicContext} so that the
 * same code runs embedded or through drivers.
 * <ul>
 * <li>No argument: two endpoints in this JVM joined in memory ({@link InMemoryContexts#pair()}: no interface, no
 * privileges), connected with the RDMA CM ({@link RdmaCm}: listen, accept, connect, disconnect).</li>
 * <li>{@code DIR_A DIR_B}: a client of each of two running {@code rnic driver}s ({@link DriverContext#open}), e.g. on
 * the two ends of a veth pair, connected with the drivers' RDMA CM: the same code.</li>
 * </ul>
 * Prints one line and exits 0, or names what went wrong and exits 1.
 */
public final class WriteReadExample
{
    private static final int MESSAGE_BYTES = 1 << 20;
    private static final int REGION_BYTES = 2 * MESSAGE_BYTES;
    private static final int PORT = 7471;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private WriteReadExample()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length != 0 && args.length != 2)
        {
            System.err.println("usage: WriteReadExample            (two in-memory endpoints in this JVM)\n" +
                "       WriteReadExample DIR_A DIR_B  (a client of each of two running drivers, e.g. " +
                "/dev/shm/rnic-t0 /dev/shm/rnic-t1)");
            System.exit(2);
        }
        try
        {
            if (args.length == 0)
            {
                embedded();
            }
            else
            {
                throughDrivers(Path.of(args[0]), Path.of(args[1]));
            }
        }
        catch (final RuntimeException ex)
        {
            check(false, ex.getMessage()); // every rnic failure is one line naming its cause: no stack trace needed
        }
    }

    /** Two in-memory endpoints. */
    private static void embedded() throws Exception
    {
        try (InMemoryContexts pair = InMemoryContexts.pair())
        {
            connectWriteAndRead(pair.first(), pair.second(), pair.secondIpv4(), "between two in-memory endpoints");
        }
    }

    /** A client of each of two drivers: the same code, the RDMA CM the drivers'. */
    private static void throughDrivers(final Path directoryA, final Path directoryB) throws Exception
    {
        try (DriverContext contextA = DriverContext.open(directoryA);
            DriverContext contextB = DriverContext.open(directoryB))
        {
            final LocalPort portB = contextB.port();
            final int gidB = ipv4GidIndex(portB);
            connectWriteAndRead(contextA, contextB, InterfaceAddresses.gidAddress(portB.gidHigh(gidB),
                portB.gidLow(gidB)), "through the drivers of " + directoryA + " and " + directoryB);
        }
    }

    /**
     * B listens and accepts (rdma_listen, rdma_get_request + rdma_accept, on another thread), A connects to B's
     * address (rdma_connect), then the WRITE and the READ, then A disconnects (rdma_disconnect).
     */
    private static void connectWriteAndRead(final RnicContext contextA, final RnicContext contextB,
        final InetAddress addressOfB, final String where) throws Exception
    {
        try (RdmaCm cmA = RdmaCm.open(contextA);
            RdmaCm cmB = RdmaCm.open(contextB))
        {
            final Side a = new Side(contextA);
            final Side b = new Side(contextB);
            final RdmaListener listener = cmB.listen(PORT);
            final CompletableFuture<RdmaConnection> accepted =
                CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));
            try (RdmaConnection connection = cmA.connect(addressOfB, PORT, a.init(), TIMEOUT, new byte[0]);
                RdmaConnection unused = accepted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
            {
                final long elapsedUs = writeAndRead(a, connection.qp(), b);
                connection.disconnect();
                check(connection.awaitDisconnected(TIMEOUT), "no DREP within " + TIMEOUT);
                System.out.println("rnic example: RDMA WRITE and READ of " + MESSAGE_BYTES + " bytes " + where +
                    ", connected with the RDMA CM, byte-exact, in " + elapsedUs + " us");
            }
            listener.close();
        }
    }

    /** WRITE A[0, 1 MiB) into B[0, 1 MiB), READ it back into A[1 MiB, 2 MiB), both checked; returns the time taken. */
    private static long writeAndRead(final Side a, final QueuePair qp, final Side b)
    {
        for (int i = 0; i < MESSAGE_BYTES; i++)
        {
            a.memory.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 7 + 3 + (i >>> 12)));
        }
        final long startNs = System.nanoTime();
        a.post(qp, WrOpcode.RDMA_WRITE, 1, 0, b.mr.address(), b.mr.rKey());
        a.awaitSend();
        final long writeMismatch = b.memory.asSlice(0, MESSAGE_BYTES).mismatch(a.memory.asSlice(0, MESSAGE_BYTES));
        check(writeMismatch == -1, "RDMA WRITE: B differs from A at byte " + writeMismatch);

        a.post(qp, WrOpcode.RDMA_READ, 2, MESSAGE_BYTES, b.mr.address(), b.mr.rKey());
        a.awaitSend();
        final long readMismatch = a.memory.asSlice(MESSAGE_BYTES, MESSAGE_BYTES)
            .mismatch(b.memory.asSlice(0, MESSAGE_BYTES));
        check(readMismatch == -1, "RDMA READ: A differs from B at byte " + readMismatch);
        return (System.nanoTime() - startNs) / 1000;
    }

    private static int ipv4GidIndex(final LocalPort port)
    {
        for (int i = 0; i < port.gidCount(); i++)
        {
            if (port.isIpv4Gid(i))
            {
                return i;
            }
        }
        throw new IllegalStateException("the port has no IPv4 address: " + port);
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
     * One side's resources: a PD, a CQ for sends and one for receives, and a 2 MiB region from the context's
     * {@code allocate} (freed after the engine stops), registered with every access right so that it can be written
     * and read remotely.
     */
    private static final class Side
    {
        private final ProtectionDomain pd;
        private final CompletionQueue sendCq;
        private final CompletionQueue recvCq;
        private final MemorySegment memory;
        private final MemoryRegion mr;
        private final SendWorkRequest request = new SendWorkRequest();
        private final WorkCompletion[] completions = new WorkCompletion[1];

        Side(final RnicContext context)
        {
            pd = context.allocPd();
            sendCq = context.createCq(64);
            recvCq = context.createCq(64);
            memory = context.allocate(REGION_BYTES);
            mr = context.registerMemoryRegion(pd, memory, AccessFlags.ALL);
        }

        QpInitAttributes init()
        {
            return new QpInitAttributes().type(QpType.RC).pd(pd).cqs(sendCq, recvCq);
        }

        void post(final QueuePair qp, final int opcode, final long wrId, final long localOffset,
            final long remoteAddress, final int rKey)
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
            final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
            while (sendCq.poll(completions, 1) == 0)
            {
                check(System.nanoTime() < deadlineNs, "no completion within " + TIMEOUT);
                Thread.yield();
            }
            final WorkCompletion completion = completions[0];
            check(completion.status() == WcStatus.SUCCESS,
                "work request " + completion.wrId() + " completed with " + completion.status());
        }
    }
}
