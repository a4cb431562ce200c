package io.rnic.verbs;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryRegionTableTest
{
    private final MemoryRegionTable table = new MemoryRegionTable();
    private final ProtectionDomain pd = new ProtectionDomain(1);
    private final ProtectionDomain otherPd = new ProtectionDomain(2);

    @Test
    void shouldGrantOnlyInsideTheRegionWithTheRightKeyPdAndAccess()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(4096, 64);
            final MemoryRegion mr = table.register(pd, segment, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            final long va = mr.address();

            assertSame(mr, table.checkRemote(mr.rKey(), pd, va, 4096, AccessFlags.REMOTE_WRITE));
            assertSame(mr, table.checkRemote(mr.rKey(), pd, va + 4095, 1, AccessFlags.REMOTE_WRITE));
            assertSame(mr, table.checkRemote(mr.rKey(), pd, va + 4096, 0, AccessFlags.REMOTE_WRITE));
            assertNull(table.checkRemote(mr.rKey(), pd, va + 4095, 2, AccessFlags.REMOTE_WRITE), "one byte past the end");
            assertNull(table.checkRemote(mr.rKey(), pd, va - 1, 1, AccessFlags.REMOTE_WRITE), "one byte before");
            assertNull(table.checkRemote(mr.rKey(), pd, va + 8, Long.MAX_VALUE, AccessFlags.REMOTE_WRITE), "overflow");
            assertNull(table.checkRemote(mr.rKey(), pd, -1L, 16, AccessFlags.REMOTE_WRITE), "wrapping address");
            assertNull(table.checkRemote(mr.rKey(), pd, va, 8, AccessFlags.REMOTE_READ), "no remote read granted");
            assertNull(table.checkRemote(mr.rKey(), otherPd, va, 8, AccessFlags.REMOTE_WRITE), "other protection domain");
            assertNull(table.checkRemote(mr.rKey() ^ 0x100, pd, va, 8, AccessFlags.REMOTE_WRITE), "wrong key");
            assertNull(table.checkRemote(0, pd, va, 8, AccessFlags.REMOTE_WRITE), "key 0");
        }
    }

    @Test
    void shouldStopHonouringAKeyOnceDeregisteredEvenWhenTheSlotIsReused()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemoryRegion first = table.register(pd, arena.allocate(64), AccessFlags.ALL);
            final int staleKey = first.rKey();
            table.deregister(first);
            assertNull(table.byKey(staleKey));
            final MemoryRegion second = table.register(pd, arena.allocate(64), AccessFlags.ALL);
            assertNotEquals(staleKey, second.rKey());
            assertNull(table.byKey(staleKey));
            assertNotNull(table.byKey(second.rKey()));
        }
    }

    @Test
    void shouldRefuseInvalidAccessFlagsAndHeapSegmentsWithAClearMessage()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final VerbsException flags = assertThrows(VerbsException.class,
                () -> table.register(pd, arena.allocate(64), AccessFlags.REMOTE_WRITE));
            assertTrue(flags.getMessage().contains("need LOCAL_WRITE"), flags.getMessage());
        }
        final VerbsException heap = assertThrows(VerbsException.class,
            () -> table.register(pd, MemorySegment.ofArray(new byte[64]), AccessFlags.LOCAL_WRITE));
        assertTrue(heap.getMessage().contains("off-heap"), heap.getMessage());
    }

    @Test
    void shouldGrowPastItsFirstArray()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemoryRegion[] regions = new MemoryRegion[100];
            for (int i = 0; i < regions.length; i++)
            {
                regions[i] = table.register(pd, arena.allocate(8), AccessFlags.LOCAL_WRITE);
            }
            for (final MemoryRegion region : regions)
            {
                assertSame(region, table.byKey(region.lKey()));
            }
        }
    }
}
