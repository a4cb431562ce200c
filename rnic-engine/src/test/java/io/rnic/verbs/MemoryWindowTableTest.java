package io.rnic.verbs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The window table's checks without an engine: bounds arithmetic, keys, owner QP, region pinning. */
class MemoryWindowTableTest
{
    private static final int QPN = 0x1234;
    private static final int RW = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;

    private final Arena arena = Arena.ofConfined();
    private final MemoryRegionTable regions = new MemoryRegionTable();
    private final MemoryWindowTable windows = regions.windows();
    private final ProtectionDomain pd = new ProtectionDomain(1);
    private final MemoryRegion mr = regions.register(pd, arena.allocate(1 << 16, 4096),
        AccessFlags.ALL | AccessFlags.MW_BIND);

    @AfterEach
    void close()
    {
        arena.close();
    }

    private static SendWorkRequest bind(
        final MemoryWindow window, final MemoryRegion region, final long offset, final long length, final int access)
    {
        final int newRKey = MemoryWindow.incRKey(window.rKey());
        return new SendWorkRequest().bindMw(window, newRKey, region, region.address() + offset, length, access);
    }

    @Test
    void shouldGrantOnlyInsideTheWindowAndRefuseOverflowingRanges()
    {
        final MemoryWindow window = windows.allocate(pd, MemoryWindow.TYPE_2);
        final SendWorkRequest wr = bind(window, mr, 4096, 100, RW);
        assertTrue(windows.bind(pd, QPN, wr));
        final int rKey = wr.mwNewRKey;
        final long va = mr.address() + 4096;

        assertSame(mr, regions.checkRemote(rKey, pd, QPN, va, 100, AccessFlags.REMOTE_WRITE));
        assertSame(mr, regions.checkRemote(rKey, pd, QPN, va + 99, 1, AccessFlags.REMOTE_READ));
        assertNull(regions.checkRemote(rKey, pd, QPN, va + 99, 2, AccessFlags.REMOTE_WRITE), "one byte past the end");
        assertNull(regions.checkRemote(rKey, pd, QPN, va - 1, 1, AccessFlags.REMOTE_WRITE), "one byte before");
        assertNull(regions.checkRemote(rKey, pd, QPN, va + 8, Long.MAX_VALUE, AccessFlags.REMOTE_WRITE), "overflow");
        assertNull(regions.checkRemote(rKey, pd, QPN, -1L, 16, AccessFlags.REMOTE_WRITE), "wrapping address");
        assertNull(regions.checkRemote(rKey, pd, QPN, va, 8, AccessFlags.REMOTE_ATOMIC), "atomics not granted");
        assertNull(regions.checkRemote(rKey, pd, QPN + 1, va, 8, AccessFlags.REMOTE_WRITE), "another QP (2B)");
        assertNull(regions.checkRemote(rKey, pd, va, 8, AccessFlags.REMOTE_WRITE), "no QP named (2B)");
        assertNull(regions.checkRemote(rKey, new ProtectionDomain(2), QPN, va, 8, AccessFlags.REMOTE_WRITE),
            "another protection domain");
        assertNull(regions.checkRemote(rKey ^ 1, pd, QPN, va, 8, AccessFlags.REMOTE_WRITE), "another key byte");
    }

    @Test
    void shouldLetAnyQpOfThePdUseATypeOneWindow()
    {
        final MemoryWindow window = windows.allocate(pd, MemoryWindow.TYPE_1);
        final SendWorkRequest wr = bind(window, mr, 0, 64, RW);
        assertTrue(windows.bind(pd, QPN, wr));
        assertSame(mr, regions.checkRemote(wr.mwNewRKey, pd, QPN + 7, mr.address(), 64, AccessFlags.REMOTE_READ));
        assertSame(mr, regions.checkRemote(wr.mwNewRKey, pd, mr.address(), 64, AccessFlags.REMOTE_READ));
    }

    @Test
    void shouldKeepADeallocatedWindowsKeyInvalidForAMillionAllocations()
    {
        // the lowest-free slot with a new key byte gave a deallocated window's key back after 256 allocations on
        // average (40 of 40 devices within 5 000)
        final MemoryWindow first = windows.allocate(pd, MemoryWindow.TYPE_2);
        final int stale = first.rKey();
        windows.deallocate(first);
        int previousIndex = stale >>> 8;
        for (int i = 0; i < 1_000_000; i++)
        {
            final MemoryWindow window = windows.allocate(pd, MemoryWindow.TYPE_2);
            assertTrue(MemoryWindowTable.isWindowKey(window.rKey()));
            if ((window.rKey() >>> 8) != previousIndex + 1 || window.rKey() == stale)
            {
                fail("allocation " + i + " took key 0x" + Integer.toHexString(window.rKey()) + " after index 0x" +
                    Integer.toHexString(previousIndex) + " (the stale key 0x" + Integer.toHexString(stale) + ")");
            }
            previousIndex = window.rKey() >>> 8;
            windows.deallocate(window);
        }
    }

    @Test
    void shouldPinTheRegionWhileAWindowIsBoundAndReleaseItOnInvalidate()
    {
        final MemoryWindow window = windows.allocate(pd, MemoryWindow.TYPE_2);
        final SendWorkRequest wr = bind(window, mr, 0, 64, RW);
        assertTrue(windows.bind(pd, QPN, wr));
        assertEquals(1, mr.boundWindows());
        assertThrows(VerbsException.class, () -> regions.deregister(mr));
        assertFalse(windows.invalidate(wr.mwNewRKey, pd, QPN + 1, true), "a remote invalidation through another QP");
        assertTrue(windows.invalidate(wr.mwNewRKey, pd, QPN, true));
        assertFalse(windows.invalidate(wr.mwNewRKey, pd, QPN, false), "not bound any more");
        assertEquals(0, mr.boundWindows());
        regions.deregister(mr);
        assertFalse(windows.bind(pd, QPN, bind(window, mr, 0, 64, RW)), "a deregistered region");
    }

    @Test
    void shouldAcceptMwBindAsARegionAccessFlag()
    {
        assertTrue(AccessFlags.isValidForMemoryRegion(AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND));
        assertFalse(AccessFlags.isValidForMemoryRegion(1 << 5), "zero-based regions are not supported");
        assertEquals("LOCAL_WRITE|MW_BIND", AccessFlags.toString(AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND));
        assertEquals(16, AccessFlags.MW_BIND, "IBV_ACCESS_MW_BIND");
        assertEquals(7, WrOpcode.LOCAL_INV, "IBV_WR_LOCAL_INV");
        assertEquals(8, WrOpcode.BIND_MW, "IBV_WR_BIND_MW");
        assertEquals(WcOpcode.BIND_MW, WrOpcode.completionOpcode(WrOpcode.BIND_MW));
        assertEquals(WcOpcode.LOCAL_INV, WrOpcode.completionOpcode(WrOpcode.LOCAL_INV));
        assertEquals(6, WcStatus.MW_BIND_ERR.value(), "IBV_WC_MW_BIND_ERR");
    }
}
