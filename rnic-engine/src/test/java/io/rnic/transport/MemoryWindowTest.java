package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.MemoryWindowTable;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;

import static io.rnic.transport.RcOperationsTest.assertBytes;
import static io.rnic.transport.RcOperationsTest.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory windows between two engines on a clean simulated link, as ibverbs and rxe ({@code rxe_mw.c}) define them:
 * type 1 bound with the bind verb, type 2B bound by a work request; READ, WRITE and atomics through a window's R_Key
 * placed inside the window only; LOCAL_INV and a peer's SEND_WITH_INV; and every check of a bind, an access and an
 * invalidation, each with the status ibverbs gives it. Side 0 is the peer that accesses, side 1 owns the windows.
 */
class MemoryWindowTest
{
    private static final long BYTES = 1 << 20;
    private static final long WINDOW_OFFSET = 4096;
    private static final int WINDOW_BYTES = 8192;
    private static final int RW = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;

    private final Arena arena = Arena.ofShared();
    private TwoNodeFabric fabric;
    private Connection peer;
    private Connection owner;
    /** The owner's memory registered again, with MW_BIND: what its windows are bound to. */
    private MemoryRegion bindable;

    @AfterEach
    void close()
    {
        arena.close();
    }

    /** A fresh connected pair (an access error leaves both QPs in ERR). */
    private void connect()
    {
        fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, BYTES, PathMtu.MTU_1024);
        peer = pair[0];
        owner = pair[1];
        bindable = owner.device.registerMemoryRegion(owner.pd, owner.memory, AccessFlags.ALL | AccessFlags.MW_BIND);
    }

    private WorkCompletion await(final Connection c, final boolean recv)
    {
        return c.awaitCompletion(fabric, recv);
    }

    /** Binds a type 1 window with the bind verb on {@code c}'s QP; returns the bind's completion. */
    private WorkCompletion bindType1(
        final Connection c, final MemoryWindow window, final MemoryRegion region, final long offset, final long length,
        final int access)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 41;
        wr.mwMrLKey = region == null ? 0 : region.lKey();
        wr.mwAddress = region == null ? 0 : region.address() + offset;
        wr.mwLength = length;
        wr.mwAccess = access;
        assertEquals(QueuePair.POST_OK, c.qp.bindMw(window, wr));
        return await(c, false);
    }

    /** Binds a type 2B window with a BIND_MW work request on {@code c}'s QP to {@code newRKey}. */
    private WorkCompletion bindType2(
        final Connection c, final MemoryWindow window, final int newRKey, final MemoryRegion region, final long offset,
        final long length, final int access)
    {
        final SendWorkRequest wr = new SendWorkRequest().bindMw(window, newRKey, region,
            region == null ? 0 : region.address() + offset, length, access);
        wr.wrId = 42;
        assertEquals(QueuePair.POST_OK, c.qp.postSend(wr));
        return await(c, false);
    }

    private WcStatus write(final int rKey, final long remoteOffset, final long localOffset, final int length)
    {
        return write(peer, owner, rKey, remoteOffset, localOffset, length);
    }

    private static SendWorkRequest remote(
        final int opcode, final Connection from, final Connection to, final int rKey, final long remoteOffset,
        final long localOffset, final int length)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 7;
        wr.opcode = opcode;
        wr.sgl.add(from.mr.address() + localOffset, length, from.mr.lKey());
        wr.remoteAddress = to.mr.address() + remoteOffset;
        wr.rKey = rKey;
        return wr;
    }

    private WcStatus write(
        final Connection from, final Connection to, final int rKey, final long remoteOffset, final long localOffset,
        final int length)
    {
        assertEquals(QueuePair.POST_OK,
            from.qp.postSend(remote(WrOpcode.RDMA_WRITE, from, to, rKey, remoteOffset, localOffset, length)));
        return await(from, false).status();
    }

    private WcStatus read(final int rKey, final long remoteOffset, final long localOffset, final int length)
    {
        assertEquals(QueuePair.POST_OK,
            peer.qp.postSend(remote(WrOpcode.RDMA_READ, peer, owner, rKey, remoteOffset, localOffset, length)));
        return await(peer, false).status();
    }

    private void postReceive(final Connection c)
    {
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 9;
        recv.sgl.add(c.mr.address() + 900_000, 4096, c.mr.lKey());
        assertEquals(QueuePair.POST_OK, c.qp.postRecv(recv));
    }

    private WcStatus sendWithInvalidate(final Connection from, final int rKey)
    {
        final SendWorkRequest send = new SendWorkRequest();
        send.wrId = 11;
        send.opcode = WrOpcode.SEND_WITH_INV;
        send.immediateOrInvalidateRKey = rKey;
        send.sgl.add(from.mr.address() + 900_000, 100, from.mr.lKey());
        assertEquals(QueuePair.POST_OK, from.qp.postSend(send));
        return await(from, false).status();
    }

    private WorkCompletion localInvalidate(final Connection c, final int rKey)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 43;
        wr.opcode = WrOpcode.LOCAL_INV;
        wr.immediateOrInvalidateRKey = rKey;
        assertEquals(QueuePair.POST_OK, c.qp.postSend(wr));
        return await(c, false);
    }

    private long ownerLong(final long offset)
    {
        return owner.memory.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }

    @Test
    void shouldWriteAndReadThroughATypeOneWindowByteExact()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        final int allocated = window.rKey();
        assertTrue(MemoryWindowTable.isWindowKey(allocated));
        assertNotEquals(owner.mr.rKey(), allocated);

        final WorkCompletion bound = bindType1(owner, window, bindable, WINDOW_OFFSET, WINDOW_BYTES, RW);
        assertEquals(WcStatus.SUCCESS, bound.status());
        assertEquals(WcOpcode.BIND_MW, bound.opcode());
        assertEquals(41, bound.wrId());
        assertEquals(MemoryWindow.incRKey(allocated), window.rKey(), "the bind moves the key byte");
        assertEquals(allocated & ~0xFF, window.rKey() & ~0xFF, "and keeps the window's index");

        fill(peer, 0, WINDOW_BYTES, 5);
        assertEquals(WcStatus.SUCCESS, write(window.rKey(), WINDOW_OFFSET, 0, WINDOW_BYTES));
        assertBytes(owner, WINDOW_OFFSET, WINDOW_BYTES, 5);

        fill(owner, WINDOW_OFFSET + 1000, 3000, 9);
        assertEquals(WcStatus.SUCCESS, read(window.rKey(), WINDOW_OFFSET + 1000, 100_000, 3000));
        assertBytes(peer, 100_000, 3000, 9);
    }

    @Test
    void shouldRefuseAWritePastTheWindowsEndInsideTheRegion()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, WINDOW_OFFSET, WINDOW_BYTES, RW).status());
        owner.memory.asSlice(WINDOW_OFFSET + WINDOW_BYTES, 64).fill((byte)0x5A);
        fill(peer, 0, 16, 1);

        assertEquals(WcStatus.REM_ACCESS_ERR, write(window.rKey(), WINDOW_OFFSET + WINDOW_BYTES - 8, 0, 16));
        for (int i = 0; i < 64; i++)
        {
            assertEquals((byte)0x5A, owner.memory.get(ValueLayout.JAVA_BYTE, WINDOW_OFFSET + WINDOW_BYTES + i));
        }
        assertEquals(0, ownerLong(WINDOW_OFFSET + WINDOW_BYTES - 8), "nothing written before the check");
    }

    @Test
    void shouldRefuseAReadBeforeTheWindowsStart()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, WINDOW_OFFSET, WINDOW_BYTES, RW).status());
        assertEquals(WcStatus.REM_ACCESS_ERR, read(window.rKey(), WINDOW_OFFSET - 1, 0, 2));
    }

    @Test
    void shouldRefuseTheOldKeyOfARebindTypeOneWindow()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, WINDOW_OFFSET, WINDOW_BYTES, RW).status());
        final int first = window.rKey();
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, 0, WINDOW_BYTES, RW).status());
        assertEquals(MemoryWindow.incRKey(first), window.rKey());
        assertEquals(WcStatus.SUCCESS, write(window.rKey(), 0, 0, 64));
        assertEquals(WcStatus.REM_ACCESS_ERR, write(first, WINDOW_OFFSET, 0, 64));
    }

    @Test
    void shouldRefuseRightsTheWindowDoesNotGrant()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS,
            bindType1(owner, window, bindable, WINDOW_OFFSET, WINDOW_BYTES, AccessFlags.REMOTE_READ).status());
        assertEquals(WcStatus.SUCCESS, read(window.rKey(), WINDOW_OFFSET, 0, 64));
        assertEquals(WcStatus.REM_ACCESS_ERR, write(window.rKey(), WINDOW_OFFSET, 0, 64));
    }

    @Test
    void shouldFetchAndAddThroughAWindowThatGrantsAtomics()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, WINDOW_OFFSET, WINDOW_BYTES,
            AccessFlags.REMOTE_ATOMIC).status());
        owner.memory.set(ValueLayout.JAVA_LONG_UNALIGNED, WINDOW_OFFSET + 64, 1000);
        final SendWorkRequest add = remote(WrOpcode.ATOMIC_FETCH_AND_ADD, peer, owner, window.rKey(),
            WINDOW_OFFSET + 64, 0, Long.BYTES);
        add.compareAdd = 23;
        assertEquals(QueuePair.POST_OK, peer.qp.postSend(add));
        assertEquals(WcStatus.SUCCESS, await(peer, false).status());
        assertEquals(1023, ownerLong(WINDOW_OFFSET + 64));
        assertEquals(1000, peer.memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));

        final SendWorkRequest outside = remote(WrOpcode.ATOMIC_FETCH_AND_ADD, peer, owner, window.rKey(),
            WINDOW_OFFSET + WINDOW_BYTES, 0, Long.BYTES);
        outside.compareAdd = 1;
        assertEquals(QueuePair.POST_OK, peer.qp.postSend(outside));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(peer, false).status());
        assertEquals(0, ownerLong(WINDOW_OFFSET + WINDOW_BYTES));
    }

    @Test
    void shouldRefuseAnyAccessThroughAZeroLengthTypeOneWindow()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, null, 0, 0, RW).status());
        assertEquals(WcStatus.REM_ACCESS_ERR, write(window.rKey(), 0, 0, 1));
    }

    @Test
    void shouldWriteAndReadThroughATypeTwoWindowThenRefuseItAfterSendWithInvalidate()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final int newRKey = MemoryWindow.incRKey(window.rKey());
        final WorkCompletion bound = bindType2(owner, window, newRKey, bindable, WINDOW_OFFSET, WINDOW_BYTES, RW);
        assertEquals(WcStatus.SUCCESS, bound.status());
        assertEquals(WcOpcode.BIND_MW, bound.opcode());
        assertEquals(newRKey, window.rKey());

        fill(peer, 0, WINDOW_BYTES, 77);
        assertEquals(WcStatus.SUCCESS, write(newRKey, WINDOW_OFFSET, 0, WINDOW_BYTES));
        assertBytes(owner, WINDOW_OFFSET, WINDOW_BYTES, 77);
        assertEquals(WcStatus.SUCCESS, read(newRKey, WINDOW_OFFSET + 10, 200_000, 5000));
        assertBytes(peer, 200_000, 5000, 77 + 10 * 31);

        postReceive(owner);
        assertEquals(WcStatus.SUCCESS, sendWithInvalidate(peer, newRKey));
        final WorkCompletion received = await(owner, true);
        assertEquals(WcStatus.SUCCESS, received.status());
        assertEquals(WcOpcode.RECV, received.opcode());
        assertTrue(received.hasFlag(WorkCompletion.WITH_INV));
        assertEquals(newRKey, received.immediateData(), "the invalidated R_Key");

        assertEquals(WcStatus.REM_ACCESS_ERR, write(newRKey, WINDOW_OFFSET, 0, 8));
    }

    /**
     * An IBTA 1.5 ATOMIC WRITE names a type 2B window as a WRITE does: through the QP that bound it, inside the
     * window (its R_Key check takes the QP, else a type 2B window would refuse it).
     */
    @Test
    void shouldAtomicWriteThroughATypeTwoWindowInsideTheWindowOnly()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final int rKey = MemoryWindow.incRKey(window.rKey());
        assertEquals(WcStatus.SUCCESS,
            bindType2(owner, window, rKey, bindable, WINDOW_OFFSET, WINDOW_BYTES, RW).status());
        peer.memory.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x1122_3344_5566_7788L);
        assertEquals(QueuePair.POST_OK, peer.qp.postSend(
            remote(WrOpcode.ATOMIC_WRITE, peer, owner, rKey, WINDOW_OFFSET + 64, 0, Long.BYTES)));
        assertEquals(WcStatus.SUCCESS, await(peer, false).status());
        assertEquals(0x1122_3344_5566_7788L, ownerLong(WINDOW_OFFSET + 64));

        // the first 8 bytes past the window's end, still inside the region: refused, as a WRITE's would be
        assertEquals(QueuePair.POST_OK, peer.qp.postSend(
            remote(WrOpcode.ATOMIC_WRITE, peer, owner, rKey, WINDOW_OFFSET + WINDOW_BYTES, 0, Long.BYTES)));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(peer, false).status());
        assertEquals(0, ownerLong(WINDOW_OFFSET + WINDOW_BYTES));
    }

    @Test
    void shouldRefuseATypeTwoWindowAfterLocalInvalidateAndBindItAgain()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final int first = MemoryWindow.incRKey(window.rKey());
        assertEquals(WcStatus.SUCCESS, bindType2(owner, window, first, bindable, 0, WINDOW_BYTES, RW).status());
        final WorkCompletion invalidated = localInvalidate(owner, first);
        assertEquals(WcStatus.SUCCESS, invalidated.status());
        assertEquals(WcOpcode.LOCAL_INV, invalidated.opcode());
        assertEquals(WcStatus.REM_ACCESS_ERR, write(first, 0, 0, 8));

        connectAgainKeepingOwnerWindow(window);
    }

    /** After LOCAL_INV the window is free: bound again (on a fresh pair), with another key, it works. */
    private void connectAgainKeepingOwnerWindow(final MemoryWindow window)
    {
        // the pair is in ERR after the refused write; the owner's device and window are all this needs
        final Connection freshPeer = new Connection(fabric.a(), arena, QpType.RC, BYTES, AccessFlags.ALL);
        final Connection freshOwner = new Connection(fabric.b(), owner.pd, arena, QpType.RC, BYTES, AccessFlags.ALL);
        freshPeer.connect(freshOwner, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000,
            AccessFlags.ALL);
        freshOwner.connect(freshPeer, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000,
            AccessFlags.ALL);
        final int second = MemoryWindow.incRKey(window.rKey());
        assertEquals(WcStatus.SUCCESS,
            bindType2(freshOwner, window, second, bindable, WINDOW_OFFSET, WINDOW_BYTES, RW).status());
        fill(freshPeer, 0, 256, 3);
        final SendWorkRequest wr = remote(WrOpcode.RDMA_WRITE, freshPeer, freshOwner, second, WINDOW_OFFSET, 0, 256);
        wr.remoteAddress = bindable.address() + WINDOW_OFFSET;
        assertEquals(QueuePair.POST_OK, freshPeer.qp.postSend(wr));
        assertEquals(WcStatus.SUCCESS, await(freshPeer, false).status());
        assertBytes(owner, WINDOW_OFFSET, 256, 3);
    }

    @Test
    void shouldNotBindAValidTypeTwoWindowAgain()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final int first = MemoryWindow.incRKey(window.rKey());
        assertEquals(WcStatus.SUCCESS, bindType2(owner, window, first, bindable, 0, WINDOW_BYTES, RW).status());
        final WorkCompletion again =
            bindType2(owner, window, MemoryWindow.incRKey(first), bindable, 0, WINDOW_BYTES, RW);
        assertEquals(WcStatus.MW_BIND_ERR, again.status());
        assertEquals(42, again.wrId());
        assertEquals(QpState.ERR, owner.qp.state(), "a refused bind moves the QP to ERR, as rxe's");
        assertEquals(first, window.rKey(), "the window keeps its binding");
    }

    @Test
    void shouldRefuseTypeTwoBindsWithBadArgumentsWithMwBindErr()
    {
        // the region lacks MW_BIND (C10-73)
        assertBindRefused(() -> owner.mr, 0, WINDOW_BYTES, RW);
        // the range leaves the region (C10-75)
        assertBindRefused(() -> bindable, BYTES - 100, 200, RW);
        // zero length (o10-37.2.40)
        assertBindRefused(() -> bindable, 0, 0, RW);
        // rights a window cannot grant (local write)
        assertBindRefused(() -> bindable, 0, 64, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        // a writable window over a region without local write (C10-74)
        assertBindRefused(() -> owner.device.registerMemoryRegion(owner.pd, owner.memory,
            AccessFlags.REMOTE_READ | AccessFlags.MW_BIND), 0, 64, AccessFlags.REMOTE_WRITE);
        // a region of another protection domain
        assertBindRefused(() -> owner.device.registerMemoryRegion(owner.device.allocPd(), owner.memory,
            AccessFlags.ALL | AccessFlags.MW_BIND), 0, 64, RW);
    }

    private void assertBindRefused(
        final java.util.function.Supplier<MemoryRegion> region, final long offset, final long length, final int access)
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final int before = window.rKey();
        final WorkCompletion wc =
            bindType2(owner, window, MemoryWindow.incRKey(before), region.get(), offset, length, access);
        assertEquals(WcStatus.MW_BIND_ERR, wc.status(), "offset " + offset + " length " + length);
        assertEquals(before, window.rKey());
    }

    @Test
    void shouldRefuseABindNamingAStaleKeyOrFromAQpOfAnotherProtectionDomain()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final SendWorkRequest stale = new SendWorkRequest().bindMw(window, 0, bindable, bindable.address(), 64, RW);
        stale.mwRKey = MemoryWindow.incRKey(window.rKey());
        assertEquals(QueuePair.POST_OK, owner.qp.postSend(stale));
        assertEquals(WcStatus.MW_BIND_ERR, await(owner, false).status());

        connect();
        final MemoryWindow foreign = owner.device.allocMw(owner.device.allocPd(), MemoryWindow.TYPE_2);
        assertEquals(WcStatus.MW_BIND_ERR,
            bindType2(owner, foreign, MemoryWindow.incRKey(foreign.rKey()), bindable, 0, 64, RW).status());
    }

    @Test
    void shouldRefuseTheBindVerbForATypeTwoWindow()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final SendWorkRequest wr = new SendWorkRequest();
        wr.mwMrLKey = bindable.lKey();
        wr.mwAddress = bindable.address();
        wr.mwLength = 64;
        wr.mwAccess = RW;
        assertEquals(QueuePair.POST_INVALID, owner.qp.bindMw(window, wr));
    }

    @Test
    void shouldNotInvalidateATypeOneWindowRemotely()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, 0, WINDOW_BYTES, RW).status());
        postReceive(owner);
        assertEquals(WcStatus.REM_INV_REQ_ERR, sendWithInvalidate(peer, window.rKey()));
        assertEquals(WcStatus.REM_INV_REQ_ERR, await(owner, true).status());
        assertEquals(1, owner.device.engine().counters().get(TransportCounter.INVALIDATE_ERROR));
    }

    @Test
    void shouldNotInvalidateATypeOneWindowLocally()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, 0, WINDOW_BYTES, RW).status());
        assertEquals(WcStatus.LOC_QP_OP_ERR, localInvalidate(owner, window.rKey()).status());
    }

    @Test
    void shouldRefuseATypeTwoWindowThroughAnotherQpOfItsProtectionDomain()
    {
        connect();
        final Connection otherPeer = new Connection(fabric.a(), arena, QpType.RC, BYTES, AccessFlags.ALL);
        final Connection otherOwner = new Connection(fabric.b(), owner.pd, arena, QpType.RC, BYTES, AccessFlags.ALL);
        otherPeer.connect(otherOwner, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000,
            AccessFlags.ALL);
        otherOwner.connect(otherPeer, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000,
            AccessFlags.ALL);
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final int rKey = MemoryWindow.incRKey(window.rKey());
        assertEquals(WcStatus.SUCCESS, bindType2(owner, window, rKey, bindable, 0, WINDOW_BYTES, RW).status());

        // an invalidation through the other QP is refused, and the window stays usable through its own
        postReceive(otherOwner);
        assertEquals(WcStatus.REM_INV_REQ_ERR, sendWithInvalidate(otherPeer, rKey));
        assertEquals(WcStatus.SUCCESS, write(rKey, 0, 0, 64));

        final Connection thirdPeer = new Connection(fabric.a(), arena, QpType.RC, BYTES, AccessFlags.ALL);
        final Connection thirdOwner = new Connection(fabric.b(), owner.pd, arena, QpType.RC, BYTES, AccessFlags.ALL);
        thirdPeer.connect(thirdOwner, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000,
            AccessFlags.ALL);
        thirdOwner.connect(thirdPeer, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000,
            AccessFlags.ALL);
        final SendWorkRequest wr = remote(WrOpcode.RDMA_WRITE, thirdPeer, thirdOwner, rKey, 0, 0, 64);
        wr.remoteAddress = bindable.address();
        assertEquals(QueuePair.POST_OK, thirdPeer.qp.postSend(wr));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(thirdPeer, false).status());
    }

    @Test
    void shouldRefuseAWindowFromAQpOfAnotherProtectionDomain()
    {
        connect();
        final Connection otherPeer = new Connection(fabric.a(), arena, QpType.RC, BYTES, AccessFlags.ALL);
        final Connection otherOwner = new Connection(fabric.b(), arena, QpType.RC, BYTES, AccessFlags.ALL);
        assertNotEquals(owner.pd, otherOwner.pd);
        otherPeer.connect(otherOwner, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000,
            AccessFlags.ALL);
        otherOwner.connect(otherPeer, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000,
            AccessFlags.ALL);
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, 0, WINDOW_BYTES, RW).status());

        final SendWorkRequest wr = remote(WrOpcode.RDMA_WRITE, otherPeer, otherOwner, window.rKey(), 0, 0, 64);
        wr.remoteAddress = bindable.address();
        assertEquals(QueuePair.POST_OK, otherPeer.qp.postSend(wr));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(otherPeer, false).status());
        assertEquals(WcStatus.SUCCESS, write(window.rKey(), 0, 0, 64), "through its own PD's QP it works");
    }

    @Test
    void shouldRefuseADeallocatedWindowsKey()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_1);
        assertEquals(WcStatus.SUCCESS, bindType1(owner, window, bindable, 0, WINDOW_BYTES, RW).status());
        final int rKey = window.rKey();
        owner.device.deallocMw(window);
        assertEquals(WcStatus.REM_ACCESS_ERR, write(rKey, 0, 0, 64));
        assertThrows(VerbsException.class, () -> owner.device.deallocMw(window));
    }

    @Test
    void shouldNotDeregisterARegionWithBoundWindows()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        final int rKey = MemoryWindow.incRKey(window.rKey());
        assertEquals(WcStatus.SUCCESS, bindType2(owner, window, rKey, bindable, 0, WINDOW_BYTES, RW).status());
        assertEquals(1, bindable.boundWindows());

        final VerbsException busy =
            assertThrows(VerbsException.class, () -> owner.device.deregisterMemoryRegion(bindable));
        assertTrue(busy.getMessage().contains("EBUSY"), busy.getMessage());
        assertEquals(WcStatus.SUCCESS, write(rKey, 0, 0, 64), "still registered, the window still works");

        assertEquals(WcStatus.SUCCESS, localInvalidate(owner, rKey).status());
        assertEquals(0, bindable.boundWindows());
        owner.device.deregisterMemoryRegion(bindable);
    }

    @Test
    void shouldBindOnlyAfterTheWorkRequestsPostedBeforeTheBindComplete()
    {
        connect();
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        // the owner writes into the peer, then binds: the bind completes second, in order
        fill(owner, 0, 50_000, 4);
        final SendWorkRequest write = owner.signalledWriteTo(peer, 50_000);
        write.wrId = 1;
        assertEquals(QueuePair.POST_OK, owner.qp.postSend(write));
        final SendWorkRequest bind = new SendWorkRequest().bindMw(window, MemoryWindow.incRKey(window.rKey()),
            bindable, bindable.address(), 64, RW);
        bind.wrId = 2;
        assertEquals(QueuePair.POST_OK, owner.qp.postSend(bind));
        final WorkCompletion first = await(owner, false);
        assertEquals(1, first.wrId());
        assertEquals(WcStatus.SUCCESS, first.status());
        final WorkCompletion second = await(owner, false);
        assertEquals(2, second.wrId());
        assertEquals(WcOpcode.BIND_MW, second.opcode());
        assertBytes(peer, 0, 50_000, 4);
    }

    @Test
    void shouldCycleBindWriteReadAndSendWithInvalidateByteExactOverALossyLink()
    {
        // lost, reordered and duplicated frames: a SEND_WITH_INV resent after its ACK was lost arrives as a duplicate
        // and is acknowledged, never invalidated twice (which would be a NAK); each cycle's key is a new one
        final LinkConditions lossy = new LinkConditions().loss(0.05).reorder(0.05).duplicate(0.03);
        fabric = new TwoNodeFabric(lossy, lossy, 9);
        final Connection[] pair = Connection.rcPair(fabric, arena, BYTES, PathMtu.MTU_1024);
        peer = pair[0];
        owner = pair[1];
        bindable = owner.device.registerMemoryRegion(owner.pd, owner.memory, AccessFlags.ALL | AccessFlags.MW_BIND);
        final MemoryWindow window = owner.device.allocMw(owner.pd, MemoryWindow.TYPE_2);
        for (int cycle = 0; cycle < 60; cycle++)
        {
            final long offset = WINDOW_OFFSET + (cycle % 7) * 8192L;
            final int length = 1 + (cycle * 977) % 6000;
            final int rKey = MemoryWindow.incRKey(window.rKey());
            final WorkCompletion bound = bindType2(owner, window, rKey, bindable, offset, length, RW);
            assertEquals(WcStatus.SUCCESS, bound.status(), "cycle " + cycle);

            fill(peer, 0, length, cycle);
            assertEquals(WcStatus.SUCCESS, write(rKey, offset, 0, length), "cycle " + cycle);
            assertBytes(owner, offset, length, cycle);
            assertEquals(WcStatus.SUCCESS, read(rKey, offset, 300_000, length), "cycle " + cycle);
            assertBytes(peer, 300_000, length, cycle);

            postReceive(owner);
            assertEquals(WcStatus.SUCCESS, sendWithInvalidate(peer, rKey), "cycle " + cycle);
            final WorkCompletion received = await(owner, true);
            assertEquals(WcStatus.SUCCESS, received.status(), "cycle " + cycle);
            assertTrue(received.hasFlag(WorkCompletion.WITH_INV));
            assertEquals(rKey, received.immediateData());
            assertEquals(0, bindable.boundWindows(), "cycle " + cycle + ": invalidated, the region is free");
        }
        assertEquals(0, owner.device.engine().counters().get(TransportCounter.INVALIDATE_ERROR));
        assertTrue(owner.device.engine().counters().get(TransportCounter.DUPLICATE_REQUEST) > 0,
            "the link duplicated or the peer resent some requests");
    }

    @Test
    void shouldKeepWindowKeysApartFromRegionKeys()
    {
        connect();
        for (int i = 0; i < 40; i++)
        {
            final MemoryWindow window = owner.device.allocMw(owner.pd, i % 2 == 0 ? MemoryWindow.TYPE_1 :
                MemoryWindow.TYPE_2);
            assertTrue(MemoryWindowTable.isWindowKey(window.rKey()));
        }
        assertTrue(!MemoryWindowTable.isWindowKey(owner.mr.rKey()));
        assertThrows(VerbsException.class, () -> owner.device.allocMw(owner.pd, 3));
    }
}
