package io.rnic.datapath.endpoint;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What two started endpoints must do for each other whatever the port between them: ARP, then RC WRITE, READ,
 * SEND with immediate and FETCH_ADD, byte-exact, without a retransmission.
 */
public final class EndpointPairScenario
{
    private EndpointPairScenario()
    {
    }

    public static void rcOperations(
        final Endpoint a, final Endpoint b, final byte[] ipA, final byte[] ipB, final Arena arena) throws Exception
    {
        rcOperations(a, b, ipA, ipB, arena, PathMtu.MTU_1024);
    }

    /** The operations with the QPs connected at {@code pathMtu}. */
    public static void rcOperations(final Endpoint a, final Endpoint b, final byte[] ipA, final byte[] ipB,
        final Arena arena, final PathMtu pathMtu) throws Exception
    {
        // the endpoints stay the caller's: the contexts are views, not closed here (their memory is freed at the end)
        rcOperations(EmbeddedContext.of(a), EmbeddedContext.of(b), InetAddress.getByAddress(ipA),
            InetAddress.getByAddress(ipB), pathMtu);
        final String report = a.countersReport();
        assertTrue(report.contains("port frames transmitted"), report);
        assertEquals(0, a.engineErrors() + b.engineErrors());
        if (a.agent().stalls() + b.agent().stalls() == 0) // a descheduled engine thread is answered late, and resent to
        {
            assertEquals(0, a.engine().counters().get(TransportCounter.RETRANSMITTED_PACKETS));
        }
    }

    /**
     * The operations between two contexts, written against {@link RnicContext} only: the same code runs on embedded
     * endpoints and on a driver's clients. Frees what it made.
     */
    public static void rcOperations(
        final RnicContext a, final RnicContext b, final InetAddress ipA, final InetAddress ipB) throws Exception
    {
        rcOperations(a, b, ipA, ipB, PathMtu.MTU_1024);
    }

    private static void rcOperations(final RnicContext a, final RnicContext b, final InetAddress ipA,
        final InetAddress ipB, final PathMtu pathMtu) throws Exception
    {
        final Side sa = new Side(a, QpType.RC);
        final Side sb = new Side(b, QpType.RC);
        connect(sa, sb, ipB, 1, pathMtu);
        connect(sb, sa, ipA, 1, pathMtu);

        final int size = 100_000;
        for (int i = 0; i < size; i++)
        {
            sa.memory.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 7 + 3));
        }
        final SendWorkRequest write = new SendWorkRequest();
        write.opcode = WrOpcode.RDMA_WRITE;
        write.wrId = 1;
        write.sgl.add(sa.mr.address(), size, sa.mr.lKey());
        write.remoteAddress = sb.mr.address() + 4096;
        write.rKey = sb.mr.rKey();
        assertEquals(0, sa.qp.postSend(write));
        assertEquals(WcStatus.SUCCESS, sa.await(sa.sendCq).status());
        assertEquals(-1, sb.memory.asSlice(4096, size).mismatch(sa.memory.asSlice(0, size)));

        final SendWorkRequest read = new SendWorkRequest();
        read.opcode = WrOpcode.RDMA_READ;
        read.wrId = 2;
        read.sgl.add(sa.mr.address() + 200_000, size, sa.mr.lKey());
        read.remoteAddress = sb.mr.address() + 4096;
        read.rKey = sb.mr.rKey();
        assertEquals(0, sa.qp.postSend(read));
        final WorkCompletion readDone = sa.await(sa.sendCq);
        assertEquals(WcStatus.SUCCESS, readDone.status());
        assertEquals(WcOpcode.RDMA_READ, readDone.opcode());
        assertEquals(-1, sa.memory.asSlice(200_000, size).mismatch(sa.memory.asSlice(0, size)));

        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 3;
        recv.sgl.add(sb.mr.address() + 300_000, 5000, sb.mr.lKey());
        assertEquals(0, sb.qp.postRecv(recv));
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND_WITH_IMM;
        send.immediateOrInvalidateRKey = 0x1234_5678;
        send.wrId = 4;
        send.sgl.add(sa.mr.address(), 5000, sa.mr.lKey());
        assertEquals(0, sa.qp.postSend(send));
        assertEquals(WcStatus.SUCCESS, sa.await(sa.sendCq).status());
        final WorkCompletion received = sb.awaitBlocking(sb.recvCq); // the completion channel: woken, not polling
        assertEquals(WcStatus.SUCCESS, received.status());
        assertEquals(5000, received.byteLength());
        assertEquals(0x1234_5678, received.immediateData());
        assertEquals(-1, sb.memory.asSlice(300_000, 5000).mismatch(sa.memory.asSlice(0, 5000)));

        sb.memory.set(ValueLayout.JAVA_LONG_UNALIGNED, 400_000, 40L);
        final SendWorkRequest add = new SendWorkRequest();
        add.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
        add.wrId = 5;
        add.sgl.add(sa.mr.address() + 500_000, 8, sa.mr.lKey());
        add.remoteAddress = sb.mr.address() + 400_000;
        add.rKey = sb.mr.rKey();
        add.compareAdd = 2;
        assertEquals(0, sa.qp.postSend(add));
        assertEquals(WcStatus.SUCCESS, sa.await(sa.sendCq).status());
        assertEquals(40L, sa.memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 500_000));
        assertEquals(42L, sb.memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 400_000));
        sa.close();
        sb.close();
    }

    /**
     * Memory windows between two contexts, written against {@link RnicContext} only (embedded or a driver's client):
     * {@code owner} binds a type 1 window with the bind verb and a type 2B one with BIND_MW, {@code accessor} WRITEs
     * and READs through both, byte-exact, invalidates the type 2B one with SEND_WITH_INV and sees its next WRITE
     * refused; the region stays registered while a window is bound. Frees what it made.
     */
    public static void memoryWindows(
        final RnicContext owner, final RnicContext accessor, final InetAddress ipOwner, final InetAddress ipAccessor)
        throws Exception
    {
        final Side so = new Side(owner, QpType.RC);
        final Side sa = new Side(accessor, QpType.RC);
        connect(so, sa, ipAccessor, 1, PathMtu.MTU_1024);
        connect(sa, so, ipOwner, 1, PathMtu.MTU_1024);
        final MemoryRegion bindable = owner.registerMemoryRegion(so.pd, so.memory, AccessFlags.ALL | AccessFlags.MW_BIND);
        final int rights = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;
        final int length = 8192;

        final MemoryWindow type1 = owner.allocMw(so.pd, MemoryWindow.TYPE_1);
        final SendWorkRequest bind1 = new SendWorkRequest();
        bind1.wrId = 11;
        bind1.mwMrLKey = bindable.lKey();
        bind1.mwAddress = bindable.address() + 4096;
        bind1.mwLength = length;
        bind1.mwAccess = rights;
        assertEquals(0, so.qp.bindMw(type1, bind1));
        final WorkCompletion bound1 = so.await(so.sendCq);
        assertEquals(WcStatus.SUCCESS, bound1.status());
        assertEquals(WcOpcode.BIND_MW, bound1.opcode());
        final MemoryWindow type2 = owner.allocMw(so.pd, MemoryWindow.TYPE_2);
        final int rKey2 = MemoryWindow.incRKey(type2.rKey());
        assertEquals(0, so.qp.postSend(new SendWorkRequest().bindMw(type2, rKey2, bindable,
            bindable.address() + 16384, length, rights)));
        assertEquals(WcStatus.SUCCESS, so.await(so.sendCq).status());

        for (int i = 0; i < length; i++)
        {
            sa.memory.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 11 + 1));
        }
        assertEquals(WcStatus.SUCCESS, remote(sa, WrOpcode.RDMA_WRITE, 0, bindable.address() + 4096, type1.rKey(),
            length));
        assertEquals(-1, so.memory.asSlice(4096, length).mismatch(sa.memory.asSlice(0, length)));
        assertEquals(WcStatus.SUCCESS, remote(sa, WrOpcode.RDMA_WRITE, 0, bindable.address() + 16384, rKey2, length));
        assertEquals(-1, so.memory.asSlice(16384, length).mismatch(sa.memory.asSlice(0, length)));
        assertEquals(WcStatus.SUCCESS, remote(sa, WrOpcode.RDMA_READ, 100_000, bindable.address() + 4096,
            type1.rKey(), length));
        assertEquals(-1, sa.memory.asSlice(100_000, length).mismatch(sa.memory.asSlice(0, length)));

        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 12;
        recv.sgl.add(so.mr.address() + 300_000, 64, so.mr.lKey());
        assertEquals(0, so.qp.postRecv(recv));
        final SendWorkRequest invalidate = new SendWorkRequest();
        invalidate.opcode = WrOpcode.SEND_WITH_INV;
        invalidate.immediateOrInvalidateRKey = rKey2;
        invalidate.sgl.add(sa.mr.address(), 16, sa.mr.lKey());
        assertEquals(0, sa.qp.postSend(invalidate));
        assertEquals(WcStatus.SUCCESS, sa.await(sa.sendCq).status());
        final WorkCompletion received = so.await(so.recvCq);
        assertEquals(WcStatus.SUCCESS, received.status());
        assertTrue(received.hasFlag(WorkCompletion.WITH_INV));
        assertEquals(rKey2, received.immediateData());
        assertEquals(WcStatus.REM_ACCESS_ERR, remote(sa, WrOpcode.RDMA_WRITE, 0, bindable.address() + 16384, rKey2, 8));

        final VerbsException busy = org.junit.jupiter.api.Assertions.assertThrows(VerbsException.class,
            () -> owner.deregisterMemoryRegion(bindable));
        assertTrue(busy.getMessage().contains("EBUSY"), busy.getMessage());
        owner.deallocMw(type1);
        owner.deallocMw(type2);
        owner.deregisterMemoryRegion(bindable);
        so.close();
        sa.close();
    }

    private static WcStatus remote(
        final Side side, final int opcode, final long localOffset, final long remoteAddress, final int rKey,
        final int length) throws InterruptedException
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.opcode = opcode;
        wr.wrId = 13;
        wr.sgl.add(side.mr.address() + localOffset, length, side.mr.lKey());
        wr.remoteAddress = remoteAddress;
        wr.rKey = rKey;
        assertEquals(0, side.qp.postSend(wr));
        return side.await(side.sendCq).status();
    }

    private static void connect(final Side local, final Side remote, final InetAddress peer, final int sgidIndex,
        final PathMtu pathMtu)
    {
        final long mac = local.context.resolveMac(peer, sgidIndex, Duration.ofSeconds(5));
        final ConnectParameters parameters = new ConnectParameters()
            .remote(remote.qp.qpn(), 0x100)
            .localPsn(0x100)
            .pathMtu(pathMtu)
            .readAtomic(4, 4);
        parameters.addressVector.destinationIpv4(
            (int)InterfaceAddresses.gidOf(peer)[1]).destinationMac(mac).sourceGidIndex(sgidIndex);
        parameters.applyTo(local.qp);
    }

    private static final class Side
    {
        final RnicContext context;
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final QueuePair qp;
        final MemorySegment memory;
        final MemoryRegion mr;
        final WorkCompletion[] completion = { new WorkCompletion() };

        Side(final RnicContext context, final QpType type)
        {
            this.context = context;
            pd = context.allocPd();
            sendCq = context.createCq(256);
            recvCq = context.createCq(256);
            qp = context.createQp(new QpInitAttributes().type(type).pd(pd).cqs(sendCq, recvCq));
            memory = context.allocate(1 << 20);
            mr = context.registerMemoryRegion(pd, memory, AccessFlags.ALL);
        }

        WorkCompletion await(final CompletionQueue cq) throws InterruptedException
        {
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (cq.poll(completion, 1) == 0)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("no completion within 10 s on " + qp.describe());
                }
                Thread.sleep(0, 100_000);
            }
            return completion[0];
        }

        WorkCompletion awaitBlocking(final CompletionQueue cq)
        {
            if (cq.pollBlocking(completion, 1, 10_000_000_000L) == 0)
            {
                throw new AssertionError("no completion within 10 s on " + qp.describe());
            }
            return completion[0];
        }

        void close()
        {
            context.destroyQp(qp);
            context.destroyCq(sendCq);
            context.destroyCq(recvCq);
            context.deregisterMemoryRegion(mr);
            context.free(memory);
        }
    }
}
