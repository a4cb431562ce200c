package io.rnic.datapath.driver;

import io.rnic.transport.SrqVerbsChecks;
import io.rnic.client.DriverContext;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.shm.SharedMemory;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttrMask;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static io.rnic.transport.SrqVerbsChecks.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scenarios of the embedded {@code SharedReceiveQueueTest} through a driver: a client's SRQ shared by several RC
 * QPs, byte-exact, a UD QP on one, the limit event and its arming, the RNR NAK of an empty SRQ, last WQE reached, the
 * verbs' errors with ibverbs' errno, another client's handle refused, and a dead client's SRQs reclaimed. The peer is
 * an embedded endpoint on the other end of the in-memory link.
 */
class DriverSharedReceiveQueueTest
{
    private static final long TIMEOUT_NS = 10_000_000_000L;
    private static final int SLOT_BYTES = 8192;
    private static final int QKEY = 0x11111111;

    private DriverFixture fixture;
    private DriverContext client;

    @BeforeEach
    void start() throws Exception
    {
        fixture = DriverFixture.withTimeoutMs(5_000);
        client = DriverContext.open(fixture.directory);
    }

    @AfterEach
    void stop() throws Exception
    {
        client.close();
        fixture.close();
    }

    @Test
    void shouldRefuseWhatIbverbsRefusesWithItsErrnoThroughDriver()
    {
        final ProtectionDomain pd = client.allocPd();
        assertErrno(Errno.EINVAL, () -> client.createSrq(pd, new SrqAttributes().maxWr(0)));
        assertErrno(Errno.EINVAL, () -> client.createSrq(pd,
            new SrqAttributes().maxWr(SharedReceiveQueue.MAX_SRQ_WR + 1)));
        assertErrno(Errno.EINVAL, () -> client.createSrq(pd, new SrqAttributes().maxSge(1000)));
        assertErrno(Errno.EINVAL, () -> client.createSrq(pd, new SrqAttributes().maxWr(8).srqLimit(9)));

        final SharedReceiveQueue srq = client.createSrq(pd, new SrqAttributes().maxWr(4).maxSge(2).srqLimit(1));
        SrqVerbsChecks.checkQueryModifyAndPost(srq);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(0x1000, 8, 1);

        final CompletionQueue cq = client.createCq(16);
        assertErrno(Errno.EINVAL, () -> client.createQp(new QpInitAttributes().type(QpType.UC).pd(pd).cqs(cq, cq)
            .srq(srq)));
        assertErrno(Errno.EINVAL, () -> client.createQp(new QpInitAttributes().pd(client.allocPd()).cqs(cq, cq)
            .srq(srq)));
        final SharedReceiveQueue embedded = fixture.peer.createSrq(fixture.peer.allocPd(), new SrqAttributes());
        assertErrno(Errno.EINVAL, () -> client.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).srq(embedded)));
        fixture.peer.destroySrq(embedded);

        final QueuePair qp = client.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).srq(srq));
        final QpAttributes toInit = new QpAttributes();
        toInit.state = QpState.INIT;
        qp.modify(toInit, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        assertEquals(QueuePair.POST_INVALID, qp.postRecv(recv), "a QP of an SRQ has no receive queue of its own");

        assertErrno(Errno.EBUSY, () -> client.destroySrq(srq));
        client.destroyQp(qp);
        client.destroySrq(srq);
        assertEquals(Errno.EINVAL, srq.postRecv(recv), "a destroyed SRQ");
        assertErrno(Errno.EINVAL, () -> srq.modify(new SrqAttributes().srqLimit(1), SrqAttrMask.LIMIT));
        assertErrno(Errno.EINVAL, () -> client.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).srq(srq)));
    }

    @Test
    void shouldShareOneSrqBetweenThreeRcQpsByteExactThroughDriver()
    {
        final int qps = 3;
        final int messages = 8;
        final SrqSide side = new SrqSide(client, new SrqAttributes().maxWr(64).maxSge(1), qps * messages * SLOT_BYTES);
        final RcEnd[] senders = new RcEnd[qps];
        final QueuePair[] receivers = new QueuePair[qps];
        for (int k = 0; k < qps; k++)
        {
            senders[k] = new RcEnd(fixture.peer, 1 << 20);
            receivers[k] = side.qp(QpType.RC);
            senders[k].connect(receivers[k].qpn(), DriverFixture.IP_DRIVER, 14, 7);
            connect(client, receivers[k], senders[k].qp.qpn(), DriverFixture.IP_PEER);
        }
        side.post(0, qps * messages, SLOT_BYTES);

        final SendWorkRequest send = new SendWorkRequest();
        for (int m = 0; m < messages; m++)
        {
            for (int k = 0; k < qps; k++)
            {
                final int length = length(k, m);
                fill(senders[k].memory, (long)m * SLOT_BYTES, length, seed(k, m));
                send.reset();
                send.wrId = m;
                send.opcode = WrOpcode.SEND_WITH_IMM;
                send.immediateOrInvalidateRKey = k << 16 | m;
                send.sgl.add(senders[k].mr.address() + (long)m * SLOT_BYTES, length, senders[k].mr.lKey());
                assertEquals(QueuePair.POST_OK, senders[k].qp.postSend(send));
            }
        }
        final List<WorkCompletion> received = side.await(qps * messages);
        final Set<Long> wqesUsed = new HashSet<>();
        final int[] nextMessage = new int[qps];
        for (final WorkCompletion wc : received)
        {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            final int k = wc.immediateData() >>> 16;
            final int m = wc.immediateData() & 0xFFFF;
            assertEquals(receivers[k].qpn(), wc.qpNumber(), "wc.qp_num is the QP that consumed the WQE");
            assertEquals(nextMessage[k]++, m, "each QP's messages complete in order");
            assertTrue(wqesUsed.add(wc.wrId()), "a WQE used twice");
            assertEquals(length(k, m), wc.byteLength());
            assertBytes(side.memory, wc.wrId() * SLOT_BYTES, length(k, m), seed(k, m));
        }
        for (final RcEnd sender : senders)
        {
            assertEquals(WcStatus.SUCCESS, sender.poll(sender.sendCq, TIMEOUT_NS).status());
        }
        assertEquals(0, fixture.driver.endpoint().engineErrors());
    }

    @Test
    void shouldDeliverUdDatagramsFromAnSrqThroughDriver()
    {
        final SrqSide side = new SrqSide(client, new SrqAttributes().maxWr(8).maxSge(1), 8 * 2048);
        final QueuePair receiver = side.qp(QpType.UD);
        new ConnectParameters().applyTo(receiver);
        final CompletionQueue cq = fixture.peer.createCq(16);
        final ProtectionDomain pd = fixture.peer.allocPd();
        final QueuePair sender = fixture.peer.createQp(new QpInitAttributes().type(QpType.UD).pd(pd).cqs(cq, cq));
        new ConnectParameters().applyTo(sender);
        final MemorySegment memory = fixture.peer.allocate(8192);
        final MemoryRegion mr = fixture.peer.registerMemoryRegion(pd, memory, AccessFlags.ALL);
        side.post(100, 2, 2048);

        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.udRemoteQpn = receiver.qpn();
        send.udRemoteQkey = QKEY;
        send.udAddress.destinationIpv4((int)InterfaceAddresses.gidOf(DriverFixture.IP_DRIVER)[1])
            .destinationMac(fixture.peer.resolveMac(DriverFixture.IP_DRIVER, 1, Duration.ofSeconds(5)))
            .sourceGidIndex(1);
        for (int i = 0; i < 2; i++)
        {
            fill(memory, i * 1024L, 500 + i, 40 + i);
            send.sgl.clear().add(mr.address() + i * 1024L, 500 + i, mr.lKey());
            assertEquals(QueuePair.POST_OK, sender.postSend(send));
        }
        final List<WorkCompletion> received = side.await(2);
        for (int i = 0; i < 2; i++)
        {
            final WorkCompletion wc = received.get(i);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(100 + i, wc.wrId());
            assertEquals(receiver.qpn(), wc.qpNumber());
            assertEquals(sender.qpn(), wc.sourceQp());
            assertEquals(40 + 500 + i, wc.byteLength());
            assertBytes(side.memory, (100 + i) * 2048L % side.memory.byteSize() + 40, 500 + i, 40 + i);
        }
    }

    @Test
    void shouldRaiseSrqLimitEventOnceThroughDriverAndRearmItOnModify()
    {
        final SrqSide side = new SrqSide(client, new SrqAttributes().maxWr(16).maxSge(1), 16 * 4096);
        final RcEnd sender = side.connectedSender();
        final AsyncEvent event = new AsyncEvent();
        assertFalse(client.pollAsyncEvent(event));
        side.srq.modify(new SrqAttributes().srqLimit(3), SrqAttrMask.LIMIT);
        side.post(0, 5, 4096);

        sendAndAwait(sender, side, 2); // 3 left: not below the limit
        assertFalse(client.pollAsyncEvent(event));
        assertEquals(3, side.srq.query(new SrqAttributes()).srqLimit);

        sendAndAwait(sender, side, 1); // 2 left: below 3
        awaitCondition(() -> client.pollAsyncEvent(event), "the SRQ limit event");
        assertEquals(AsyncEvent.SRQ_LIMIT_REACHED, event.eventType);
        assertSame(side.srq, event.srq, "named by the client's own SRQ");
        assertEquals(0, side.srq.query(new SrqAttributes()).srqLimit, "the limit disarms when it fires");

        sendAndAwait(sender, side, 2); // 0 left: disarmed, no second event
        side.post(0, 4, 4096);
        side.srq.modify(new SrqAttributes().srqLimit(4), SrqAttrMask.LIMIT);
        assertFalse(client.pollAsyncEvent(event), "raised once");
        sendAndAwait(sender, side, 1); // 3 left: below the limit armed again
        awaitCondition(() -> client.pollAsyncEvent(event), "the limit event armed again");
        assertEquals(AsyncEvent.SRQ_LIMIT_REACHED, event.eventType);
        assertSame(side.srq, event.srq);
        assertFalse(client.pollAsyncEvent(event));
        assertEquals(0, client.droppedAsyncEvents());
    }

    @Test
    void shouldRnrNakASendWhileTheSrqIsEmptyThroughDriverAndCompleteItOncePosted()
    {
        final SrqSide side = new SrqSide(client, new SrqAttributes().maxWr(16).maxSge(1), 16 * 4096);
        final RcEnd sender = side.connectedSender();
        fill(sender.memory, 0, 3000, 7);
        final SendWorkRequest send = new SendWorkRequest();
        send.wrId = 1;
        send.opcode = WrOpcode.SEND;
        send.sgl.add(sender.mr.address(), 3000, sender.mr.lKey());
        assertEquals(QueuePair.POST_OK, sender.qp.postSend(send));
        final TransportCounter rnr = TransportCounter.RNR_NAK_RECEIVED;
        awaitCondition(() -> fixture.peer.endpoint().engine().counters().get(rnr) >= 2, "RNR NAKs from an empty SRQ");
        assertNull(sender.poll(sender.sendCq, 0), "the SEND waits for a receive");

        side.post(0, 1, 4096);
        final WorkCompletion sent = sender.poll(sender.sendCq, TIMEOUT_NS);
        assertEquals(WcStatus.SUCCESS, sent.status(), sender.qp.describe());
        final WorkCompletion received = side.await(1).get(0);
        assertEquals(WcStatus.SUCCESS, received.status());
        assertEquals(3000, received.byteLength());
        assertBytes(side.memory, 0, 3000, 7);
        assertEquals(QpState.RTS, side.qps.get(0).state());
    }

    @Test
    void shouldRaiseLastWqeReachedThroughDriverWhenAQpOfAnSrqGoesToError()
    {
        final SrqSide side = new SrqSide(client, new SrqAttributes().maxWr(16).maxSge(1), 16 * 4096);
        final RcEnd sender = side.connectedSender();
        side.post(0, 4, 4096);
        sendAndAwait(sender, side, 1);

        final QpAttributes toError = new QpAttributes();
        toError.state = QpState.ERR;
        final QueuePair qp = side.qps.get(0);
        qp.modify(toError, QpAttrMask.STATE);
        final AsyncEvent event = new AsyncEvent();
        awaitCondition(() -> client.pollAsyncEvent(event), "last WQE reached");
        assertEquals(AsyncEvent.QP_LAST_WQE_REACHED, event.eventType);
        assertEquals(qp.qpn(), event.qpNum);
        assertNull(event.srq);
        assertFalse(client.pollAsyncEvent(event), "raised once");
        assertErrno(Errno.EBUSY, () -> client.destroySrq(side.srq));
        client.destroyQp(qp);
        client.destroySrq(side.srq);
    }

    /** Another client names this one's SRQ by its handle: unknown to it, whatever the command. */
    @Test
    void shouldRefuseAnotherClientsSrqHandle() throws Exception
    {
        final ProtectionDomain pd = client.allocPd();
        final SharedReceiveQueue srq = client.createSrq(pd, new SrqAttributes().maxWr(8).srqLimit(2));
        try (CncFile cnc = CncFile.open(fixture.directory);
            RawClient other = new RawClient(cnc, fixture.directory, 0x5EC0_0000_0000_0001L))
        {
            other.attach();
            final int otherPd = (int)value(other.allocPd());
            final String unknown = "error " + ControlProtocol.ERROR_UNKNOWN_HANDLE + ": ";
            for (final String answer : new String[]{
                other.onHandle(ControlProtocol.QUERY_SRQ, srq.handle()),
                other.modifySrq(srq.handle(), SrqAttrMask.LIMIT, 0),
                other.onHandle(ControlProtocol.DESTROY_SRQ, srq.handle()),
                other.createQp(otherPd, 1, srq.handle(), QpType.RC, 4, 1, 4096) })
            {
                assertTrue(answer.startsWith(unknown), answer);
            }
            other.detach();
        }
        assertEquals(2, srq.query(new SrqAttributes()).srqLimit, "the other client changed nothing");
        client.destroySrq(srq);
    }

    /**
     * A client that dies (its {@code fds.sock} connection closes, no detach) holding an SRQ and QPs on it: the QPs go
     * first, then the SRQ (else it would be refused, EBUSY), and the driver's resources are back to the baseline.
     */
    @Test
    void shouldReclaimADeadClientsSrqAfterItsQps() throws Exception
    {
        final List<SharedMemory> files = new ArrayList<>();
        try (CncFile cnc = CncFile.open(fixture.directory))
        {
            final CountersReader counters = new CountersReader(cnc.countersMetadataBuffer(),
                cnc.countersValuesBuffer());
            final long baseline = DriverFixture.counter(counters, "driver client resources");
            final RawClient dying = new RawClient(cnc, fixture.directory, 0xDEAD_0000_0000_0001L);
            dying.attach();
            final int pd = (int)value(dying.allocPd());
            final SharedMemory cqFile = file(files, QpQueuesLayout.completionQueueFileLength(16));
            dying.sendFd(1, cqFile.fd());
            final int cq = (int)value(dying.createCq(1, cqFile.lengthBytes(), 16));
            final SharedMemory srqFile = file(files, QpQueuesLayout.srqFileLength(16, 1));
            dying.sendFd(2, srqFile.fd());
            final int srq = (int)value(dying.createSrq(pd, 16, 1, 4, 2, srqFile.lengthBytes()));
            for (int i = 0; i < 2; i++)
            {
                final SharedMemory qpFile = file(files, QpQueuesLayout.fileLength(4, 1, 1, 1));
                dying.sendFd(3 + i, qpFile.fd());
                value(dying.createQp(pd, cq, srq, i == 0 ? QpType.RC : QpType.UD, 4, 3 + i, qpFile.lengthBytes()));
            }
            assertTrue(dying.onHandle(ControlProtocol.DESTROY_SRQ, srq).startsWith("error "), "in use: refused");
            assertEquals(baseline + 5, DriverFixture.counter(counters, "driver client resources"), "PD, CQ, SRQ, QPs");

            dying.close();
            awaitCondition(() -> DriverFixture.counter(counters, "driver client resources") == baseline,
                "the dead client's resources reclaimed");
            assertEquals(1, fixture.driver.clientCount(), "this test's own client alone");
            assertEquals(0, fixture.driver.endpoint().engineErrors());
        }
        finally
        {
            files.forEach(SharedMemory::close);
        }
    }

    private static long value(final String answer)
    {
        assertTrue(answer.startsWith("result "), answer);
        return Long.parseLong(answer.split(" ")[1]);
    }

    private static SharedMemory file(final List<SharedMemory> files, final long lengthBytes)
    {
        final SharedMemory memory = SharedMemory.create("rnic-srq-test", lengthBytes, false);
        files.add(memory);
        return memory;
    }

    private void sendAndAwait(final RcEnd sender, final SrqSide side, final int count)
    {
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(sender.mr.address(), 64, sender.mr.lKey());
        for (int i = 0; i < count; i++)
        {
            assertEquals(QueuePair.POST_OK, sender.qp.postSend(send));
            assertEquals(WcStatus.SUCCESS, side.await(1).get(0).status());
        }
    }

    private static void connect(
        final RnicContext context, final QueuePair qp, final int remoteQpn, final java.net.InetAddress remoteIp)
    {
        final long mac = context.resolveMac(remoteIp, 1, Duration.ofSeconds(5));
        final ConnectParameters parameters = new ConnectParameters()
            .remote(remoteQpn, RcEnd.PSN)
            .localPsn(RcEnd.PSN)
            .readAtomic(4, 4)
            .timers(14, 7, 7, 1);
        parameters.addressVector.destinationIpv4((int)InterfaceAddresses.gidOf(remoteIp)[1])
            .destinationMac(mac).sourceGidIndex(1);
        parameters.applyTo(qp);
    }

    private static void awaitCondition(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadlineNs, "no " + what + " within 10 s");
            LockSupport.parkNanos(100_000);
        }
    }

    private static int length(final int qp, final int message)
    {
        return 1 + (message * 1637 + qp * 911) % SLOT_BYTES;
    }

    private static int seed(final int qp, final int message)
    {
        return qp * 101 + message * 7;
    }

    private static void fill(final MemorySegment memory, final long offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            memory.set(ValueLayout.JAVA_BYTE, offset + i, (byte)(seed + i * 31));
        }
    }

    private static void assertBytes(final MemorySegment memory, final long offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            assertEquals((byte)(seed + i * 31), memory.get(ValueLayout.JAVA_BYTE, offset + i), "byte " + i);
        }
    }

    /** A context's SRQ, the receive CQ and region its QPs share, and the QPs made on it. */
    private final class SrqSide
    {
        final RnicContext context;
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final SharedReceiveQueue srq;
        final MemorySegment memory;
        final MemoryRegion mr;
        final List<QueuePair> qps = new ArrayList<>();
        private final WorkCompletion[] completions = { new WorkCompletion() };

        SrqSide(final RnicContext context, final SrqAttributes attributes, final long memoryBytes)
        {
            this.context = context;
            pd = context.allocPd();
            sendCq = context.createCq(256);
            recvCq = context.createCq(256);
            srq = context.createSrq(pd, attributes);
            memory = context.allocate(memoryBytes);
            mr = context.registerMemoryRegion(pd, memory, AccessFlags.ALL);
        }

        QueuePair qp(final QpType type)
        {
            final QueuePair qp = context.createQp(new QpInitAttributes().type(type).pd(pd).cqs(sendCq, recvCq)
                .srq(srq));
            qps.add(qp);
            return qp;
        }

        /** An RC QP on the SRQ connected to a new RC QP of the peer, which it returns. */
        RcEnd connectedSender()
        {
            final RcEnd sender = new RcEnd(fixture.peer, 1 << 16);
            final QueuePair receiver = qp(QpType.RC);
            sender.connect(receiver.qpn(), DriverFixture.IP_DRIVER, 14, 7);
            connect(context, receiver, sender.qp.qpn(), DriverFixture.IP_PEER);
            return sender;
        }

        /** {@code count} receives with ids from {@code firstId}, each on its own slot of {@code slotBytes}. */
        void post(final int firstId, final int count, final int slotBytes)
        {
            final RecvWorkRequest recv = new RecvWorkRequest();
            for (int i = 0; i < count; i++)
            {
                recv.wrId = firstId + i;
                final long offset = (long)(firstId + i) * slotBytes % memory.byteSize();
                recv.sgl.clear().add(mr.address() + offset, slotBytes, mr.lKey());
                assertEquals(0, srq.postRecv(recv));
            }
        }

        /** The next {@code count} receive completions, in order, copied. */
        List<WorkCompletion> await(final int count)
        {
            final List<WorkCompletion> received = new ArrayList<>();
            final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
            while (received.size() < count)
            {
                if (recvCq.poll(completions, 1) == 1)
                {
                    received.add(completions[0]);
                    completions[0] = new WorkCompletion();
                    continue;
                }
                assertTrue(System.nanoTime() < deadlineNs, received.size() + " of " + count + " receives");
                LockSupport.parkNanos(50_000);
            }
            return received;
        }
    }
}
