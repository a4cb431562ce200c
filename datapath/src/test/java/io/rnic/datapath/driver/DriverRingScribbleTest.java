package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.datapath.endpoint.EndpointPairScenario;
import io.rnic.device.QueuePair;
import io.rnic.shm.SharedMemory;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WorkRequestRing;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine takes a client's work requests in place from the rings in the client's memory, and trusts none of it:
 * entries a client writes by hand, as a buggy or hostile C client could, move that client's QP to ERR, counted, and
 * nothing else; the driver and the client's other QPs go on.
 */
class DriverRingScribbleTest
{
    private static final int ENTRIES = 4;

    private DriverFixture fixture;

    @BeforeEach
    void start() throws Exception
    {
        fixture = DriverFixture.withTimeoutMs(2_000);
    }

    @AfterEach
    void stop() throws Exception
    {
        fixture.close();
    }

    @Test
    void shouldMoveOnlyTheQpOfAScribbledEntryToErrCountItAndGoOn() throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory);
            CncFile cnc = CncFile.open(fixture.directory))
        {
            final CountersReader counters = new CountersReader(cnc.countersMetadataBuffer(),
                cnc.countersValuesBuffer(), StandardCharsets.US_ASCII);
            final ProtectionDomain pd = client.allocPd();
            final CompletionQueue cq = client.createCq(16);
            final QueuePair scribbled = client.createQp(
                new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(ENTRIES, ENTRIES).maxSge(1, 1));
            final QueuePair bystander = client.createQp(
                new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(ENTRIES, ENTRIES).maxSge(1, 1));
            toInit(scribbled);
            toInit(bystander);
            final long malformedBefore = DriverFixture.counter(counters, "driver malformed work requests");

            // a receive entry with more SGEs than the ring holds, posted by hand: claim, fields, then the sequence
            final UnsafeBuffer file = fileOf(scribbled);
            final int recvRing = QpQueuesLayout.recvQueueOffset(ENTRIES, 1);
            final int entry = recvRing + WorkRequestRing.HEADER_LENGTH;
            file.putLongVolatile(recvRing + WorkRequestRing.PRODUCER_POSITION_OFFSET, 1);
            file.putLong(entry + 8, 0x5C81_BB1EL); // wr_id
            file.putInt(entry + WorkRequestRing.RECV_SGE_COUNT_OFFSET, 99);
            file.putLongVolatile(entry + WorkRequestRing.SEQUENCE_OFFSET, 1);
            // and the bystander's positions off: a producer position and sequences of entries the engine is not at
            final UnsafeBuffer other = fileOf(bystander);
            final int sendRing = QpQueuesLayout.sendQueueOffset();
            final int entryLength = other.getInt(sendRing + WorkRequestRing.ENTRY_LENGTH_OFFSET);
            other.putLongVolatile(sendRing + WorkRequestRing.PRODUCER_POSITION_OFFSET, Long.MAX_VALUE);
            other.putLongVolatile(sendRing + WorkRequestRing.HEADER_LENGTH + entryLength, 2);
            other.putLongVolatile(sendRing + WorkRequestRing.HEADER_LENGTH + 2 * entryLength, Long.MIN_VALUE);

            await(() -> scribbled.state() == QpState.ERR, "the scribbled QP in ERR");
            final WorkCompletion[] completions = { new WorkCompletion() };
            await(() -> cq.poll(completions, 1) == 1, "the scribbled entry flushed");
            assertEquals(0x5C81_BB1EL, completions[0].wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, completions[0].status());
            assertEquals(malformedBefore + 1, DriverFixture.counter(counters, "driver malformed work requests"));

            assertEquals(QpState.INIT, bystander.state(), "a sequence of an entry it is not at is not a post");
            assertEquals(QueuePair.POST_OK, bystander.postRecv(new RecvWorkRequest(1)));
            assertEquals(QueuePair.POST_OK, scribbled.postRecv(new RecvWorkRequest(1)), "in ERR: posted and flushed");
            await(() -> cq.poll(completions, 1) == 1, "the next receive flushed");
            assertEquals(WcStatus.WR_FLUSH_ERR, completions[0].status());
            assertEquals(0, fixture.driver.endpoint().engineErrors());

            // the engine goes on: the same client's new QPs move data
            EndpointPairScenario.rcOperations(client, fixture.peer, DriverFixture.IP_DRIVER, DriverFixture.IP_PEER);
            assertEquals(0, fixture.driver.endpoint().engineErrors());
        }
    }

    private static void toInit(final QueuePair qp)
    {
        final QpAttributes init = new QpAttributes();
        init.state = QpState.INIT;
        init.accessFlags = AccessFlags.ALL;
        qp.modify(init, QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS | QpAttrMask.PORT | QpAttrMask.PKEY_INDEX);
    }

    /** The QP's shared file as the client mapped it (what a C client writes into). */
    private static UnsafeBuffer fileOf(final QueuePair qp) throws ReflectiveOperationException
    {
        final Method memory = qp.getClass().getDeclaredMethod("memory");
        memory.setAccessible(true);
        final SharedMemory shared = (SharedMemory)memory.invoke(qp);
        return new UnsafeBuffer(shared.segment().address(), (int)shared.lengthBytes());
    }

    private static void await(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadlineNs, "waited 10 s for " + what);
            Thread.yield();
        }
    }
}
