package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.QpAttributesCodec;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.cnc.command.AttachFlyweight;
import io.rnic.cnc.command.CmAcceptFlyweight;
import io.rnic.cnc.command.CmConnectFlyweight;
import io.rnic.cnc.command.CmRejectFlyweight;
import io.rnic.cnc.command.CorrelatedMessageFlyweight;
import io.rnic.cnc.command.CreateCqFlyweight;
import io.rnic.cnc.command.CreateQpFlyweight;
import io.rnic.cnc.command.CreateSrqFlyweight;
import io.rnic.cnc.command.ErrorAnswerFlyweight;
import io.rnic.cnc.command.HandleFlyweight;
import io.rnic.cnc.command.ModifyQpFlyweight;
import io.rnic.cnc.command.ModifySrqFlyweight;
import io.rnic.cnc.command.OpenAsyncEventsFlyweight;
import io.rnic.cnc.command.RegisterMrFlyweight;
import io.rnic.cnc.command.ResolveMacFlyweight;
import io.rnic.datapath.endpoint.EndpointPairScenario;
import io.rnic.shm.SharedMemory;
import io.rnic.testing.OpenDescriptors;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.EventRing;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.ScatterGatherList;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastReceiver;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The driver's command ring written by a hostile client, without the client library: random bytes and lengths,
 * truncated messages, unknown types, every command (SRQs and the event ring among them) with random and absurd
 * arguments, memfds passed over {@code fds.sock} that are too short, unsealed or not memory at all, tokens never sent,
 * sent twice, sent by the other client or never named, attaches with a wrong nonce, another client's handles, and
 * clients that never attached. Every command with a full header gets exactly one answer (none for a keepalive), the errors are counted, a command
 * naming a token its own connection did not send never succeeds, nothing is left behind once the clients detach (the
 * driver holds no descriptor of their memory), the driver logs no internal error, and a legitimate client is served
 * byte-exact after.
 * <p>
 * {@code -Drnic.fuzz.seed=S} replays a run, {@code -Drnic.fuzz.commands=N} sets its length.
 */
class DriverCommandFuzzTest
{
    private static final int COMMANDS = Integer.getInteger("rnic.fuzz.commands", 3_000);
    private static final long ANSWER_TIMEOUT_NS = 5_000_000_000L;
    private static final int CQ_ENTRIES = 16;
    private static final int QP_WR = 4;
    private static final int QP_SGE = 1;
    private static final long MEMORY_BYTES = 65_536;
    /** The first files of the pool are good memory: sealed memfds of the length given with them. */
    private static final int GOOD_FILES = 5;
    private static final int SRQ_WR = 4;

    private DriverFixture fixture;
    private CncFile cnc;
    private ManyToOneRingBuffer toDriver;
    private CopyBroadcastReceiver answers;
    private CountersReader counters;
    private final UnsafeBuffer command = new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH +
        64));
    private final CorrelatedMessageFlyweight header = new CorrelatedMessageFlyweight().wrap(command, 0);
    private final AttachFlyweight attach = new AttachFlyweight().wrap(command, 0);
    private final HandleFlyweight handle = new HandleFlyweight().wrap(command, 0);
    private final CreateCqFlyweight createCq = new CreateCqFlyweight().wrap(command, 0);
    private final CreateQpFlyweight createQp = new CreateQpFlyweight().wrap(command, 0);
    private final ModifyQpFlyweight modifyQp = new ModifyQpFlyweight().wrap(command, 0);
    private final RegisterMrFlyweight registerMr = new RegisterMrFlyweight().wrap(command, 0);
    private final CreateSrqFlyweight createSrq = new CreateSrqFlyweight().wrap(command, 0);
    private final ModifySrqFlyweight modifySrq = new ModifySrqFlyweight().wrap(command, 0);
    private final OpenAsyncEventsFlyweight openAsyncEvents = new OpenAsyncEventsFlyweight().wrap(command, 0);
    private final ResolveMacFlyweight resolveMac = new ResolveMacFlyweight().wrap(command, 0);
    private final CmConnectFlyweight cmConnect = new CmConnectFlyweight().wrap(command, 0);
    private final CmAcceptFlyweight cmAccept = new CmAcceptFlyweight().wrap(command, 0);
    private final CmRejectFlyweight cmReject = new CmRejectFlyweight().wrap(command, 0);
    private final List<SharedMemory> memories = new ArrayList<>();
    private final List<Integer> rawFds = new ArrayList<>();
    /** The fuzzed clients' connections to {@code fds.sock}, one each, made anew before each attach. */
    private final RawClient[] raw = new RawClient[2];
    private long nextToken = 100;
    private long nextCorrelationId = 1;
    private final LongHashSet lateAnswers = new LongHashSet();
    private final LongHashSet seenAnswers = new LongHashSet();
    private long awaitedClientId;
    private long awaitedCorrelationId;
    private Answer awaited;
    private String unexpected;
    private long errorAnswers;
    private final int[] errorCodes = new int[128];
    private final int[] results = new int[ControlProtocol.OPEN_ASYNC_EVENTS + 1];
    /** Commands the mix must have seen succeed, and refusals it must have met, for the run to prove anything. */
    private static final int[] COVERED_RESULTS = { ControlProtocol.ATTACH, ControlProtocol.DETACH,
        ControlProtocol.ALLOC_PD, ControlProtocol.CREATE_CQ, ControlProtocol.REG_MR, ControlProtocol.CREATE_SRQ };
    private static final int[] COVERED_ERRORS = { ControlProtocol.ERROR_UNKNOWN_HANDLE, ControlProtocol.ERROR_BAD_MEMORY,
        ControlProtocol.ERROR_INVALID, ControlProtocol.ERROR_VERBS, ControlProtocol.ERROR_UNKNOWN_COMMAND,
        ControlProtocol.ERROR_NOT_ATTACHED, ControlProtocol.ERROR_PROTOCOL_VERSION };

    /** One answer of the driver. */
    private record Answer(int type, int code, String message, long[] values)
    {
        long value(final int index)
        {
            return values[index];
        }
    }

    @BeforeEach
    void start() throws Exception
    {
        fixture = DriverFixture.withTimeoutMs(30_000); // the raw clients send no keepalives of their own
        cnc = CncFile.open(fixture.directory);
        toDriver = new ManyToOneRingBuffer(cnc.toDriverBuffer());
        answers = new CopyBroadcastReceiver(new BroadcastReceiver(cnc.toClientsBuffer()),
            new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH + 4096)));
        counters = new CountersReader(cnc.countersMetadataBuffer(), cnc.countersValuesBuffer());
    }

    @AfterEach
    void stop() throws Exception
    {
        closeRawClients();
        cnc.close();
        fixture.close();
        for (final SharedMemory memory : memories)
        {
            memory.close();
        }
        for (final int fd : rawFds)
        {
            TestLibc.close(fd);
        }
    }

    @Test
    void shouldRefuseEveryCommandNamingAnotherClientsHandlesAndChangeNothingOfIt()
    {
        final long a = 0xA000_0000_0000_000AL;
        final long b = 0xB000_0000_0000_000BL;
        final long resourcesBefore = DriverFixture.counter(counters, "driver client resources");
        final RawClient socketA = connect(0, a);
        final RawClient socketB = connect(1, b);
        call(a, attach(ProcessHandle.current().pid(), socketA.nonce));
        call(b, attach(ProcessHandle.current().pid(), socketB.nonce));
        final int pdA = (int)call(a, empty(ControlProtocol.ALLOC_PD)).value(0);
        final SharedMemory cqMemory = memory(QpQueuesLayout.completionQueueFileLength(CQ_ENTRIES));
        socketA.sendFd(1, cqMemory.fd());
        final int cqA = (int)call(a, createCq(1, cqMemory.lengthBytes(), CQ_ENTRIES)).value(0);
        final SharedMemory qpMemory = memory(QpQueuesLayout.fileLength(QP_WR, QP_SGE, QP_WR, QP_SGE));
        socketA.sendFd(2, qpMemory.fd());
        final int qpA = (int)call(a, createQp(pdA, cqA, cqA, 0, 2, qpMemory)).value(0);
        final SharedMemory mrMemory = memory(MEMORY_BYTES);
        socketA.sendFd(3, mrMemory.fd());
        final int mrA = (int)call(a, registerMr(pdA, 3, MEMORY_BYTES, 0, MEMORY_BYTES, mrMemory.segment().address(),
            AccessFlags.ALL)).value(0);
        final SharedMemory srqMemory = memory(QpQueuesLayout.srqFileLength(SRQ_WR, QP_SGE));
        socketA.sendFd(6, srqMemory.fd());
        final int srqA = (int)call(a, createSrq(pdA, SRQ_WR, QP_SGE, 2, 6, srqMemory.lengthBytes())).value(0);
        final SharedMemory pendingOfA = SharedMemory.create("rnic-fuzz-pending", cqMemory.lengthBytes(), false);
        memories.add(pendingOfA);
        socketA.sendFd(4, pendingOfA.fd());
        final SharedMemory neverNamed = SharedMemory.create("rnic-fuzz-never-named", 4096, false);
        memories.add(neverNamed);
        socketA.sendFd(5, neverNamed.fd());

        final int pdB = (int)call(b, empty(ControlProtocol.ALLOC_PD)).value(0);
        final SharedMemory cqMemoryB = memory(QpQueuesLayout.completionQueueFileLength(CQ_ENTRIES));
        socketB.sendFd(1, cqMemoryB.fd()); // tokens are a connection's own: A's 1 is another memfd
        final int cqB = (int)call(b, createCq(1, cqMemoryB.lengthBytes(), CQ_ENTRIES)).value(0);
        final SharedMemory qpMemoryB = SharedMemory.create("rnic-fuzz-b-qp",
            QpQueuesLayout.fileLength(QP_WR, QP_SGE, QP_WR, QP_SGE), false);
        memories.add(qpMemoryB);
        final SharedMemory mrMemoryB = SharedMemory.create("rnic-fuzz-b-mr", MEMORY_BYTES, false);
        memories.add(mrMemoryB);
        final long resourcesOfBoth = DriverFixture.counter(counters, "driver client resources");
        final int stateOfA = qpMemory.segment().asByteBuffer().order(java.nio.ByteOrder.nativeOrder())
            .getInt(QpQueuesLayout.STATE_OFFSET);

        final QpAttributes toError = new QpAttributes();
        toError.state = QpState.ERR;
        for (final int handleOfA : new int[]{ pdA, cqA, qpA, mrA, srqA })
        {
            refusedAsUnknown(b, modifySrq(handleOfA, 2, 0));
            refusedAsUnknown(b, handle(ControlProtocol.QUERY_SRQ, handleOfA));
            refusedAsUnknown(b, handle(ControlProtocol.DESTROY_SRQ, handleOfA));
            socketB.sendFd(nextToken, qpMemoryB.fd());
            refusedAsUnknown(b, createQp(pdB, cqB, cqB, handleOfA, nextToken++, qpMemoryB));
            refusedAsUnknown(b, handle(ControlProtocol.DEALLOC_PD, handleOfA));
            refusedAsUnknown(b, handle(ControlProtocol.DEREG_MR, handleOfA));
            refusedAsUnknown(b, handle(ControlProtocol.DESTROY_CQ, handleOfA));
            refusedAsUnknown(b, handle(ControlProtocol.DESTROY_QP, handleOfA));
            refusedAsUnknown(b, modifyQp(handleOfA, toError, QpAttrMask.STATE));
            // the RDMA CM: another client's QP is not B's to connect or accept on, nor its ids B's to end
            refusedAsUnknown(b, cmConnect(handleOfA));
            refusedAsUnknown(b, cmAccept(handleOfA, handleOfA));
            refusedAsUnknown(b, cmReject(handleOfA));
            refusedAsUnknown(b, handle(ControlProtocol.CM_DISCONNECT, handleOfA));
            refusedAsUnknown(b, handle(ControlProtocol.CM_RELEASE, handleOfA));
            socketB.sendFd(nextToken, mrMemoryB.fd());
            refusedAsUnknown(b, registerMr(handleOfA, nextToken++, MEMORY_BYTES, 0, MEMORY_BYTES,
                mrMemoryB.segment().address(), AccessFlags.ALL));
            socketB.sendFd(nextToken, qpMemoryB.fd());
            refusedAsUnknown(b, createQp(handleOfA, cqB, cqB, 0, nextToken++, qpMemoryB));
            socketB.sendFd(nextToken, qpMemoryB.fd());
            refusedAsUnknown(b, createQp(pdB, handleOfA, cqB, 0, nextToken++, qpMemoryB));
            socketB.sendFd(nextToken, qpMemoryB.fd());
            refusedAsUnknown(b, createQp(pdB, cqB, handleOfA, 0, nextToken++, qpMemoryB));
        }
        for (final long tokenOfA : new long[]{ 4, 5 })
        {
            refusedAsBadMemory(b, createCq(tokenOfA, cqMemory.lengthBytes(), CQ_ENTRIES));
            refusedAsBadMemory(b, registerMr(pdB, tokenOfA, 4096, 0, 4096, 0, AccessFlags.ALL));
            refusedAsBadMemory(b, createQp(pdB, cqB, cqB, 0, tokenOfA, qpMemoryB));
        }
        assertEquals(2, OpenDescriptors.ofMemfd("rnic-fuzz-pending"), "A's pending memfd, still the driver's");

        assertEquals(resourcesOfBoth, DriverFixture.counter(counters, "driver client resources"));
        assertEquals(stateOfA, qpMemory.segment().asByteBuffer().order(java.nio.ByteOrder.nativeOrder())
            .getInt(QpQueuesLayout.STATE_OFFSET), "B changed the state of A's QP");
        assertEquals(QpState.INIT.ordinal(), call(a, modifyQp(qpA, init(),
            QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS)).value(0),
            "A's QP still answers to A");
        final int cqOfPending = (int)call(a, createCq(4, cqMemory.lengthBytes(), CQ_ENTRIES)).value(0);
        call(a, handle(ControlProtocol.DESTROY_CQ, cqOfPending));
        assertEquals(2, OpenDescriptors.ofMemfd("rnic-fuzz-never-named"), "ours, and the one the driver holds");
        assertEquals(2, call(a, handle(ControlProtocol.QUERY_SRQ, srqA)).value(2), "B changed the limit of A's SRQ");
        call(a, handle(ControlProtocol.DESTROY_QP, qpA));
        call(a, handle(ControlProtocol.DESTROY_SRQ, srqA));
        call(a, handle(ControlProtocol.DESTROY_CQ, cqA));
        call(a, handle(ControlProtocol.DEREG_MR, mrA));
        call(a, handle(ControlProtocol.DEALLOC_PD, pdA));
        call(a, empty(ControlProtocol.DETACH));
        call(b, empty(ControlProtocol.DETACH));
        assertEquals(1, OpenDescriptors.ofMemfd("rnic-fuzz-never-named"), "a memfd never named is closed on detach");
        assertEquals(1, OpenDescriptors.ofMemfd("rnic-fuzz-pending"));
        // a refused command closes its memfd if the driver read it from the socket already, else its detach does
        assertEquals(1, OpenDescriptors.ofMemfd("rnic-fuzz-b-qp"), "B's refused memfds are closed");
        assertEquals(1, OpenDescriptors.ofMemfd("rnic-fuzz-b-mr"));
        assertEquals(resourcesBefore, DriverFixture.counter(counters, "driver client resources"));
        assertEquals(0, fixture.driver.clientCount());
        assertNoDriverErrorLogged();
    }

    @Test
    void shouldAnswerEveryHostileCommandOnceAndServeALegitimateClientAfter() throws Exception
    {
        final long seed = Long.getLong("rnic.fuzz.seed", System.nanoTime());
        try
        {
            fuzz(new Random(seed));
        }
        catch (final AssertionError | RuntimeException ex)
        {
            throw new AssertionError("seed " + seed + " (replay with -Drnic.fuzz.seed=" + seed + "): " +
                ex.getMessage(), ex);
        }
    }

    private boolean covered()
    {
        for (final int type : COVERED_RESULTS)
        {
            if (results[type] == 0)
            {
                return false;
            }
        }
        for (final int code : COVERED_ERRORS)
        {
            if (errorCodes[code] == 0)
            {
                return false;
            }
        }
        return true;
    }

    private void fuzz(final Random random) throws Exception
    {
        final long resourcesBefore = DriverFixture.counter(counters, "driver client resources");
        final long commandsBefore = DriverFixture.counter(counters, "driver commands");
        final long errorsBefore = DriverFixture.counter(counters, "driver command errors");
        final long errorAnswersBefore = errorAnswers;
        final long[] clients = { random.nextLong() | 1, random.nextLong() | 1 };
        final boolean[] attached = new boolean[clients.length];
        final long never = random.nextLong() | 1;
        final Pool pool = new Pool(random);
        final long poolMemfds = OpenDescriptors.ofMemfd("rnic-fuzz");
        final long fdRefusalsBefore = DriverFixture.counter(counters, "driver fds.sock messages refused");
        long sent = 0;
        long unanswerable = 0;

        // at least COMMANDS, and on until the mix has reached past every check (a seed may take longer to make an MR)
        for (int i = 0; i < COMMANDS || (!covered() && i < COMMANDS * 20); i++)
        {
            final int who = random.nextInt(10);
            final int clientIndex = who < 4 ? 0 : who < 7 ? 1 : -1;
            final long clientId = clientIndex >= 0 ? clients[clientIndex] : who < 9 ? never : random.nextLong();
            final boolean known = clientIndex >= 0 && attached[clientIndex];
            final long correlationId = nextCorrelationId++;
            final int kind = random.nextInt(12);
            int type;
            int length;
            if (kind == 0) // random bytes of a random length, the header kept or not
            {
                length = random.nextInt(ControlProtocol.MAX_MESSAGE_LENGTH + 64);
                type = 1 + random.nextInt(200);
                final byte[] bytes = new byte[length];
                random.nextBytes(bytes);
                command.putBytes(random.nextBoolean() ? 0 : CorrelatedMessageFlyweight.LENGTH, bytes, 0,
                    Math.min(bytes.length, command.capacity() - CorrelatedMessageFlyweight.LENGTH));
            }
            else if (kind == 1) // truncated: not even a header
            {
                length = random.nextInt(CorrelatedMessageFlyweight.LENGTH);
                type = 1 + random.nextInt(ControlProtocol.RESOLVE_MAC);
            }
            else if (kind == 2) // unknown types, the answers' own among them
            {
                length = CorrelatedMessageFlyweight.LENGTH + 8 * random.nextInt(4);
                type = new int[]{ ControlProtocol.OPEN_ASYNC_EVENTS + 1, 100, ControlProtocol.OPERATION_SUCCEEDED,
                    ControlProtocol.ERROR, 1000, Integer.MAX_VALUE }[random.nextInt(6)];
            }
            else
            {
                type = ControlProtocol.KEEPALIVE + random.nextInt(ControlProtocol.OPEN_ASYNC_EVENTS - 1);
                if (clientIndex >= 0 && !attached[clientIndex] && random.nextInt(3) == 0)
                {
                    type = ControlProtocol.ATTACH;
                }
                pool.clientIndex = clientIndex;
                pool.foreignToken = false;
                length = ControlProtocol.commandLength(type);
                if (length < 0) // a retired id (21, CM_POLL until version 3): an unknown command now
                {
                    length = CorrelatedMessageFlyweight.LENGTH;
                }
                else
                {
                    pool.fill(type, length, random.nextInt(5) == 0);
                }
                if (kind == 3) // a well-formed length cut or stretched by a few bytes, or any length at all
                {
                    length = random.nextBoolean() ? Math.max(0, length + random.nextInt(15) - 7) :
                        random.nextInt(ControlProtocol.MAX_MESSAGE_LENGTH);
                }
            }
            if (type == ControlProtocol.ATTACH && !(clientIndex >= 0 && !known))
            {
                type = 999; // only the raw clients attach: a random id would stay attached until it timed out
            }
            if (type == ControlProtocol.ATTACH)
            {
                // a new connection and hello for each attach: a detach closed the last one, a refusal left it
                final RawClient client = connect(clientIndex, clientId);
                if (length >= AttachFlyweight.LENGTH)
                {
                    attach.protocolVersion(random.nextInt(6) == 0 ? random.nextInt(8) : CncFile.VERSION)
                        .pid(ProcessHandle.current().pid())
                        .nonce(random.nextInt(5) == 0 ? client.nonce ^ 1 : client.nonce);
                }
            }
            if (type == ControlProtocol.RESOLVE_MAC && length == ResolveMacFlyweight.LENGTH)
            {
                resolveMac.timeoutMs(1 + random.nextInt(3)); // never wait long for an address
            }
            header.header(clientId, correlationId); // random bytes may have covered it

            assertTrue(toDriver.write(type, command, 0, length), "the command ring is full");
            sent++;
            final int typeLength = ControlProtocol.commandLength(type);
            final boolean wellFormed = typeLength < 0 || length == typeLength;
            if (length < CorrelatedMessageFlyweight.LENGTH)
            {
                unanswerable++;
                continue; // counted as an error, answered to no one: it names no client
            }
            if (wellFormed && type == ControlProtocol.KEEPALIVE)
            {
                continue;
            }
            final boolean otherVersion = type == ControlProtocol.ATTACH &&
                length >= AttachFlyweight.PROTOCOL_VERSION_OFFSET + Integer.BYTES &&
                attach.protocolVersion() != CncFile.VERSION;
            final boolean willAttach = wellFormed && type == ControlProtocol.ATTACH && !otherVersion;
            if (wellFormed && (known || willAttach) && type == ControlProtocol.RESOLVE_MAC)
            {
                lateAnswers.add(correlationId); // answered once the wire answered, or not
                continue;
            }
            final Answer answer = await(clientId, correlationId);
            if (otherVersion)
            {
                assertEquals(ControlProtocol.ERROR, answer.type(), "an attach of protocol version " +
                    attach.protocolVersion());
                assertEquals(ControlProtocol.ERROR_PROTOCOL_VERSION, answer.code(), answer.message());
            }
            else if (!wellFormed)
            {
                assertEquals(ControlProtocol.ERROR, answer.type(), "malformed " + type + " of " + length + " bytes");
                assertEquals(ControlProtocol.ERROR_INVALID, answer.code(), answer.message());
            }
            else if (!known && !willAttach)
            {
                assertEquals(ControlProtocol.ERROR, answer.type(), "command " + type + " of an unattached client");
                assertEquals(ControlProtocol.ERROR_NOT_ATTACHED, answer.code(), answer.message());
            }
            else if (answer.type() != ControlProtocol.ERROR)
            {
                assertTrue(!pool.foreignToken || (type != ControlProtocol.CREATE_CQ &&
                    type != ControlProtocol.CREATE_QP && type != ControlProtocol.REG_MR &&
                    type != ControlProtocol.CREATE_SRQ && type != ControlProtocol.OPEN_ASYNC_EVENTS),
                    ControlProtocol.commandName(type) + " took memory its client's connection did not send");
                results[Math.min(type, results.length - 1)]++;
                if (type == ControlProtocol.ATTACH)
                {
                    attached[clientIndex] = true;
                }
                else if (type == ControlProtocol.DETACH)
                {
                    attached[clientIndex] = false;
                    pool.handles.get(clientIndex).clear(); // stale now: any number names them as well
                    pool.pds.get(clientIndex).clear();
                }
                else if (answer.values().length > 0 && (type == ControlProtocol.ALLOC_PD ||
                    type == ControlProtocol.REG_MR || type == ControlProtocol.CREATE_CQ ||
                    type == ControlProtocol.CREATE_QP || type == ControlProtocol.CREATE_SRQ))
                {
                    pool.handles.get(clientIndex).add(answer.value(0));
                    if (type == ControlProtocol.ALLOC_PD)
                    {
                        pool.pds.get(clientIndex).add(answer.value(0));
                    }
                }
            }
        }
        for (int c = 0; c < clients.length; c++)
        {
            if (attached[c])
            {
                await(clients[c], send(clients[c], empty(ControlProtocol.DETACH)));
                sent++;
            }
        }
        await(never, send(never, empty(ControlProtocol.DETACH))); // answered after every command before it was read
        sent++;
        final long deadlineNs = System.nanoTime() + 20_000_000_000L;
        while (!lateAnswers.isEmpty())
        {
            receive();
            assertTrue(System.nanoTime() < deadlineNs, lateAnswers.size() + " resolve_mac commands never answered");
            LockSupport.parkNanos(100_000);
        }
        receive();
        if (unexpected != null)
        {
            fail(unexpected);
        }
        closeRawClients();
        final long deadlineFdsNs = System.nanoTime() + 10_000_000_000L;
        while (OpenDescriptors.ofMemfd("rnic-fuzz") != poolMemfds ||
            OpenDescriptors.ofMemfd("rnic-fuzz-unsealed") != 2)
        {
            assertTrue(System.nanoTime() < deadlineFdsNs, "the driver still holds descriptors of the clients' " +
                "memory: " + OpenDescriptors.ofMemfd("rnic-fuzz") + " of the pool's " + poolMemfds);
            LockSupport.parkNanos(1_000_000);
        }
        assertTrue(DriverFixture.counter(counters, "driver fds.sock messages refused") > fdRefusalsBefore,
            "no fds.sock message was refused (a token sent twice, a message without an fd)");

        // the run reached past the checks: resources were made from the hostile mix, and every refusal was met
        for (final int type : COVERED_RESULTS)
        {
            assertTrue(results[type] > 0, "no " + ControlProtocol.commandName(type) + " succeeded in the run");
        }
        for (final int code : COVERED_ERRORS)
        {
            assertTrue(errorCodes[code] > 0, "no error " + code + " in the run");
        }
        assertEquals(sent, DriverFixture.counter(counters, "driver commands") - commandsBefore, "commands the driver counted");
        assertEquals(errorAnswers - errorAnswersBefore + unanswerable, DriverFixture.counter(counters, "driver command errors") - errorsBefore,
            "errors the driver counted: those it answered and those it could not");
        assertEquals(resourcesBefore, DriverFixture.counter(counters, "driver client resources"), "resources left once the clients detached");
        assertEquals(0, fixture.driver.clientCount());
        assertNoDriverErrorLogged();

        try (DriverContext client = DriverContext.open(fixture.directory))
        {
            EndpointPairScenario.rcOperations(client, fixture.peer, DriverFixture.IP_DRIVER, DriverFixture.IP_PEER);
        }
        assertEquals(0, fixture.driver.endpoint().engineErrors());
    }

    /** Arguments for a command: of the right count and plausible (handles, memory files, lengths) or of neither. */
    private final class Pool
    {
        final Random random;
        /** Handles the driver gave each raw client, for the commands that should name them. */
        final List<List<Long>> handles = List.of(new ArrayList<>(), new ArrayList<>());
        final List<List<Long>> pds = List.of(new ArrayList<>(), new ArrayList<>());
        int clientIndex;
        /** Whether the last command's token was one its client's connection did not send. */
        boolean foreignToken;
        final long[][] files; // { fd, length }

        Pool(final Random random)
        {
            this.random = random;
            final SharedMemory cq = memory(QpQueuesLayout.completionQueueFileLength(CQ_ENTRIES));
            final SharedMemory qp = memory(QpQueuesLayout.fileLength(QP_WR, QP_SGE, QP_WR, QP_SGE));
            final SharedMemory mr = memory(MEMORY_BYTES);
            final SharedMemory srq = memory(QpQueuesLayout.srqFileLength(SRQ_WR, QP_SGE));
            final SharedMemory events = memory(EventRing.fileLength());
            // bad memory of a CQ's length: create_cq, which names no handle, reaches the memory checks often
            final long cqBytes = cq.lengthBytes();
            final SharedMemory tooShort = memory(4096);
            final int unsealed = TestLibc.unsealedMemfd("rnic-fuzz-unsealed", cqBytes);
            rawFds.add(unsealed);
            final int unsealedForMr = TestLibc.unsealedMemfd("rnic-fuzz-unsealed", MEMORY_BYTES);
            rawFds.add(unsealedForMr);
            final int regular = TestLibc.regularFile(fixture.directory.resolve("regular-file"), cqBytes);
            rawFds.add(regular);
            files = new long[][]{
                { cq.fd(), cqBytes }, { qp.fd(), qp.lengthBytes() }, { mr.fd(), mr.lengthBytes() },
                { srq.fd(), srq.lengthBytes() }, { events.fd(), events.lengthBytes() },
                { tooShort.fd(), cqBytes }, { tooShort.fd(), MEMORY_BYTES }, { unsealed, cqBytes },
                { unsealedForMr, MEMORY_BYTES }, { regular, cqBytes }, { 1_000_000, cqBytes }, { -1, cqBytes },
                { Integer.MAX_VALUE, 1L << 62 } };
        }

        /**
         * Writes a command of {@code type} of {@code length} bytes: every field a random value, then, but for
         * {@code anyValues} and now and then, plausible values (handles, memory files, lengths) in the fields that
         * must hold them for the command to reach past the driver's first checks.
         */
        void fill(final int type, final int length, final boolean anyValues)
        {
            for (int offset = CorrelatedMessageFlyweight.LENGTH; offset + Integer.BYTES <= length;
                offset += Integer.BYTES)
            {
                command.putInt(offset, random.nextBoolean() ? (int)any() : (int)(any() >>> 32));
            }
            if (anyValues || random.nextInt(4) == 0)
            {
                return;
            }
            final long[] file = files[random.nextInt(random.nextBoolean() ? GOOD_FILES : files.length)];
            switch (type)
            {
                case ControlProtocol.DEALLOC_PD, ControlProtocol.DEREG_MR, ControlProtocol.DESTROY_CQ,
                    ControlProtocol.DESTROY_QP, ControlProtocol.QUERY_SRQ, ControlProtocol.DESTROY_SRQ,
                    ControlProtocol.DEALLOC_MW, ControlProtocol.CM_DISCONNECT, ControlProtocol.CM_RELEASE ->
                    handle.handle((int)handle());
                case ControlProtocol.CREATE_SRQ -> createSrq
                    .pdHandle((int)pd())
                    .maxWr(plausible() ? SRQ_WR : (int)any())
                    .maxSge(plausible() ? QP_SGE : (int)any())
                    .srqLimit(plausible() ? random.nextInt(SRQ_WR + 2) : (int)any())
                    .memfdToken(token(file))
                    .fileLengthBytes(plausible() ? file[1] : any());
                case ControlProtocol.MODIFY_SRQ -> modifySrq
                    .srqHandle((int)handle())
                    .attrMask(plausible() ? random.nextInt(4) : (int)any())
                    .srqLimit(plausible() ? random.nextInt(SRQ_WR + 2) - 1 : (int)any());
                case ControlProtocol.OPEN_ASYNC_EVENTS -> openAsyncEvents
                    .memfdToken(token(file))
                    .fileLengthBytes(plausible() ? file[1] : any());
                case ControlProtocol.REG_MR -> registerMr
                    .pdHandle((int)pd())
                    .memfdToken(token(file))
                    .fileLengthBytes(plausible() ? file[1] : any())
                    .fileOffsetBytes(plausible() ? 0 : any())
                    .lengthBytes(plausible() ? file[1] : any())
                    .accessFlags(plausible() ? AccessFlags.ALL : registerMr.accessFlags());
                case ControlProtocol.CREATE_CQ -> createCq
                    .memfdToken(token(file))
                    .fileLengthBytes(plausible() ? file[1] : any())
                    .entries(plausible() ? CQ_ENTRIES : (int)any());
                case ControlProtocol.CREATE_QP -> createQp
                    .pdHandle((int)pd())
                    .sendCqHandle((int)handle())
                    .recvCqHandle((int)handle())
                    .qpType(random.nextInt(6)) // 2, 3, 4 are types
                    .maxSendWr(plausible() ? QP_WR : (int)any())
                    .maxRecvWr(plausible() ? QP_WR : (int)any())
                    .maxSendSge(plausible() ? QP_SGE : (int)any())
                    .maxRecvSge(plausible() ? QP_SGE : (int)any())
                    .memfdToken(token(file))
                    .fileLengthBytes(plausible() ? file[1] : any())
                    .srqHandle(random.nextBoolean() ? 0 : (int)handle()); // none, or an SRQ (its own or not)
                case ControlProtocol.MODIFY_QP -> modifyQp
                    .qpHandle((int)handle())
                    .attrMask(random.nextBoolean() ? random.nextInt(1 << 21) : modifyQp.attrMask())
                    .qpState(random.nextInt(QpState.values().length + 2) - 1)
                    .curQpState(random.nextInt(QpState.values().length + 2) - 1)
                    .pathMtu(random.nextInt(7));
                case ControlProtocol.CM_CONNECT, ControlProtocol.CM_ACCEPT, ControlProtocol.CM_REJECT ->
                {
                    final int privateDataLength = random.nextInt(250) - 20; // out of range now and then
                    switch (type)
                    {
                        case ControlProtocol.CM_CONNECT -> cmConnect.qpHandle((int)handle())
                            .privateDataLength(privateDataLength);
                        case ControlProtocol.CM_ACCEPT -> cmAccept.cmIdHandle((int)handle()).qpHandle((int)handle())
                            .privateDataLength(privateDataLength);
                        default -> cmReject.cmIdHandle((int)handle()).privateDataLength(privateDataLength);
                    }
                }
                default ->
                {
                }
            }
        }

        /**
         * The token a command names for {@code file}: mostly one its client sent the file with just before, else one
         * never sent, one the other client sent, one sent twice (the second refused); now and then the client also
         * sends a memfd it never names. Sets {@link #foreignToken} when its own connection did not send it.
         */
        private long token(final long[] file)
        {
            final long token = nextToken++;
            final RawClient own = clientIndex < 0 ? null : raw[clientIndex];
            final RawClient other = clientIndex < 0 ? null : raw[1 - clientIndex];
            final int fd = (int)file[0];
            switch (random.nextInt(10))
            {
                case 0 ->
                {
                    foreignToken = true;
                    return random.nextBoolean() ? token : random.nextLong();
                }
                case 1 ->
                {
                    foreignToken = true;
                    if (other != null)
                    {
                        other.trySendFd(token, fd);
                    }
                    return token;
                }
                case 2 ->
                {
                    if (own != null)
                    {
                        own.trySendFd(token, fd);
                        own.trySendFd(token, (int)files[random.nextInt(GOOD_FILES)][0]);
                    }
                    return token;
                }
                case 3 ->
                {
                    if (own != null)
                    {
                        own.trySendFd(nextToken++, (int)files[random.nextInt(files.length)][0]);
                        own.trySendFd(token, fd);
                    }
                    return token;
                }
                default ->
                {
                    if (own != null)
                    {
                        own.trySendFd(token, fd);
                    }
                    return token;
                }
            }
        }

        private boolean plausible()
        {
            return random.nextInt(4) != 0;
        }

        /** Mostly one of the sender's own PDs, else any handle. */
        private long pd()
        {
            final List<Long> own = clientIndex < 0 ? List.of() : pds.get(clientIndex);
            return own.isEmpty() || !plausible() ? handle() : own.get(random.nextInt(own.size()));
        }

        /** Mostly one of the sender's own handles, else the other client's, else any small number. */
        private long handle()
        {
            final int pick = random.nextInt(6);
            final List<Long> from = clientIndex < 0 ? List.of() : handles.get(pick < 4 ? clientIndex : 1 - clientIndex);
            return from.isEmpty() || pick == 5 ? random.nextInt(64) : from.get(random.nextInt(from.size()));
        }

        private long any()
        {
            return switch (random.nextInt(8))
            {
                case 0 -> random.nextLong();
                case 1 -> new long[]{ 0, -1, 1L << 31, 1L << 62, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE,
                    Integer.MIN_VALUE, 1L << 32, 1L << 40 }[random.nextInt(10)];
                case 2 -> handle();
                case 3 -> files[random.nextInt(files.length)][random.nextInt(2)];
                default -> random.nextInt(ScatterGatherList.MAX_SGE + 64) - 8;
            };
        }
    }

    private int empty(final int type)
    {
        return type;
    }

    private int attach(final long pid, final long nonce)
    {
        attach.protocolVersion(CncFile.VERSION).pid(pid).nonce(nonce);
        return ControlProtocol.ATTACH;
    }

    private int handle(final int type, final int objectHandle)
    {
        handle.handle(objectHandle);
        return type;
    }

    private int createCq(final long memfdToken, final long fileLengthBytes, final int entries)
    {
        createCq.memfdToken(memfdToken).fileLengthBytes(fileLengthBytes).entries(entries);
        return ControlProtocol.CREATE_CQ;
    }

    private int createQp(
        final int pd, final int sendCq, final int recvCq, final int srq, final long memfdToken,
        final SharedMemory memory)
    {
        createQp.pdHandle(pd).sendCqHandle(sendCq).recvCqHandle(recvCq).srqHandle(srq).qpType(QpType.RC.value())
            .maxSendWr(QP_WR).maxRecvWr(QP_WR).maxSendSge(QP_SGE).maxRecvSge(QP_SGE).signalAll(0)
            .memfdToken(memfdToken).fileLengthBytes(memory.lengthBytes());
        return ControlProtocol.CREATE_QP;
    }

    private int registerMr(
        final int pd, final long memfdToken, final long fileLengthBytes, final long fileOffsetBytes,
        final long lengthBytes, final long iova, final int accessFlags)
    {
        registerMr.pdHandle(pd).memfdToken(memfdToken).fileLengthBytes(fileLengthBytes)
            .fileOffsetBytes(fileOffsetBytes).lengthBytes(lengthBytes).iova(iova).accessFlags(accessFlags);
        return ControlProtocol.REG_MR;
    }

    private int createSrq(
        final int pd, final int maxWr, final int maxSge, final int srqLimit, final long memfdToken,
        final long fileLengthBytes)
    {
        createSrq.pdHandle(pd).maxWr(maxWr).maxSge(maxSge).srqLimit(srqLimit).memfdToken(memfdToken)
            .fileLengthBytes(fileLengthBytes);
        return ControlProtocol.CREATE_SRQ;
    }

    private int modifySrq(final int srq, final int attrMask, final int srqLimit)
    {
        modifySrq.srqHandle(srq).attrMask(attrMask).srqLimit(srqLimit);
        return ControlProtocol.MODIFY_SRQ;
    }

    private int modifyQp(final int qp, final QpAttributes attributes, final int attrMask)
    {
        modifyQp.qpHandle(qp).attrMask(attrMask);
        QpAttributesCodec.encode(attributes, modifyQp);
        return ControlProtocol.MODIFY_QP;
    }

    private int cmConnect(final int qp)
    {
        cmConnect.qpHandle(qp).sgidIndex(0).peerGidHigh(0).peerGidLow(0xFFFF_0A0D_0002L).port(7471)
            .responderResources(0).initiatorDepth(0).typeOfService(-1).privateData(new byte[0]);
        return ControlProtocol.CM_CONNECT;
    }

    private int cmAccept(final int cmId, final int qp)
    {
        cmAccept.cmIdHandle(cmId).qpHandle(qp).responderResources(0).initiatorDepth(0).privateData(new byte[0]);
        return ControlProtocol.CM_ACCEPT;
    }

    private int cmReject(final int cmId)
    {
        cmReject.cmIdHandle(cmId).privateData(new byte[0]);
        return ControlProtocol.CM_REJECT;
    }

    /** A new connection to {@code fds.sock} for raw client {@code index}, hello said with a new nonce. */
    private RawClient connect(final int index, final long clientId)
    {
        if (raw[index] != null)
        {
            raw[index].close(); // before the hello: the driver reads the old connection's end first
        }
        raw[index] = new RawClient(cnc, fixture.directory, clientId, clientId * 31 + nextToken++);
        return raw[index];
    }

    private void closeRawClients()
    {
        for (int i = 0; i < raw.length; i++)
        {
            if (raw[i] != null)
            {
                raw[i].close();
                raw[i] = null;
            }
        }
    }

    private static QpAttributes init()
    {
        final QpAttributes attributes = new QpAttributes();
        attributes.state = QpState.INIT;
        attributes.pkeyIndex = 0;
        attributes.portNumber = 1;
        attributes.accessFlags = AccessFlags.ALL;
        return attributes;
    }

    private SharedMemory memory(final long lengthBytes)
    {
        final SharedMemory memory = SharedMemory.create("rnic-fuzz", lengthBytes, false);
        memories.add(memory);
        return memory;
    }

    /** Sends the command written in the buffer, of {@code type}, and returns its answer, which must succeed. */
    private Answer call(final long clientId, final int type)
    {
        final Answer answer = await(clientId, send(clientId, type));
        if (answer.type() == ControlProtocol.ERROR)
        {
            fail(ControlProtocol.commandName(type) + " refused: " + answer.message());
        }
        return answer;
    }

    private void refusedAsUnknown(final long clientId, final int type)
    {
        final Answer answer = await(clientId, send(clientId, type));
        assertEquals(ControlProtocol.ERROR, answer.type(), ControlProtocol.commandName(type) + " was not refused");
        assertEquals(ControlProtocol.ERROR_UNKNOWN_HANDLE, answer.code(), answer.message());
    }

    private void refusedAsBadMemory(final long clientId, final int type)
    {
        final Answer answer = await(clientId, send(clientId, type));
        assertEquals(ControlProtocol.ERROR, answer.type(), ControlProtocol.commandName(type) + " was not refused");
        assertEquals(ControlProtocol.ERROR_BAD_MEMORY, answer.code(), answer.message());
    }

    private long send(final long clientId, final int type)
    {
        final long correlationId = nextCorrelationId++;
        header.header(clientId, correlationId);
        assertTrue(toDriver.write(type, command, 0, ControlProtocol.commandLength(type)), "the command ring is full");
        return correlationId;
    }

    /**
     * The answer to one command. Answers come in the order of the commands, but for addresses resolved late: any other
     * answer before it is one too many (a second answer, or one to a keepalive or to a message without a client).
     */
    private Answer await(final long clientId, final long correlationId)
    {
        awaitedClientId = clientId;
        awaitedCorrelationId = correlationId;
        awaited = null;
        final long deadlineNs = System.nanoTime() + ANSWER_TIMEOUT_NS;
        while (awaited == null)
        {
            if (receive() == 0)
            {
                assertTrue(System.nanoTime() < deadlineNs, "no answer to command " + correlationId);
                LockSupport.parkNanos(20_000);
            }
        }
        if (unexpected != null)
        {
            fail(unexpected);
        }
        return awaited;
    }

    private int receive()
    {
        return answers.receive(this::onAnswer);
    }

    private void onAnswer(final int type, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final CorrelatedMessageFlyweight answerHeader = new CorrelatedMessageFlyweight().wrap(buffer, offset);
        final long correlationId = answerHeader.correlationId();
        final ErrorAnswerFlyweight error = new ErrorAnswerFlyweight().wrap(buffer, offset);
        if (type == ControlProtocol.ERROR)
        {
            errorAnswers++;
            errorCodes[error.code() & 127]++;
        }
        if (!seenAnswers.add(correlationId))
        {
            unexpected = unexpected != null ? unexpected : "a second answer to command " + correlationId;
            return;
        }
        if (lateAnswers.remove(correlationId))
        {
            return;
        }
        if (correlationId != awaitedCorrelationId || answerHeader.clientId() != awaitedClientId || awaited != null)
        {
            unexpected = unexpected != null ? unexpected : "an answer to command " + correlationId + " of client " +
                Long.toHexString(answerHeader.clientId()) + " while waiting for " + awaitedCorrelationId + ": " +
                (type == ControlProtocol.ERROR ? error.message() : "a result");
            return;
        }
        final String described = RawClient.describe(type, buffer, offset, length); // checks the answer's length
        if (type == ControlProtocol.ERROR)
        {
            awaited = new Answer(type, error.code(), error.message(), new long[0]);
        }
        else
        {
            final String[] parts = described.equals("result done") ? new String[1] : described.split(" ");
            final long[] values = new long[parts.length - 1];
            for (int i = 0; i < values.length; i++)
            {
                values[i] = Long.parseLong(parts[i + 1]);
            }
            awaited = new Answer(type, 0, null, values);
        }
    }

    /** A refusal is an answer; an exception the conductor did not expect is a driver bug, and it logs those. */
    private void assertNoDriverErrorLogged()
    {
        final StringBuilder errors = new StringBuilder();
        final int count = ErrorLogReader.read(cnc.errorLogBuffer(),
            (observations, first, last, encoded) -> errors.append(observations).append("× ").append(encoded));
        assertEquals(0, count, errors.toString());
    }
}
