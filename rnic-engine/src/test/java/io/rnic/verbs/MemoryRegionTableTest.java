package io.rnic.verbs;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    @Test
    void shouldKeepAStaleKeyFromTheRegionsThatFollowItUntilTheWholeTableHasCycled()
    {
        // One region at a time, registered and deregistered 1000 times: with lowest-free slots and a generation
        // byte, every one of them took slot 1 and a key came back exactly after 256 registrations.
        final int rounds = 1000;
        final int slots = 15; // the first array's 16 entries, slot 0 never used
        final int[] keys = new int[rounds];
        int staleHits = 0;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(64);
            for (int round = 0; round < rounds; round++)
            {
                final MemoryRegion mr = table.register(pd, segment, AccessFlags.ALL);
                keys[round] = mr.rKey();
                if (round > 0)
                {
                    assertNotEquals(keys[round - 1] >>> 8, keys[round] >>> 8, "round-robin: the next slot, not the freed one");
                }
                if (round >= slots)
                {
                    assertEquals(keys[round - slots] >>> 8, keys[round] >>> 8, "the slot comes round again after " + slots);
                    assertNotEquals(keys[round - slots], keys[round], "never the slot's previous key byte");
                }
                for (int earlier = 0; earlier < round; earlier++)
                {
                    final MemoryRegion found = table.byKey(keys[earlier]);
                    if (found != null)
                    {
                        // the table has cycled and the slot drew that byte again: the key names the new region (its
                        // PD and rights still checked), never the deregistered one or its memory
                        assertSame(mr, found);
                        assertTrue(round - earlier > slots, "key of round " + earlier + " back at round " + round);
                        staleHits++;
                    }
                }
                table.deregister(mr);
                assertNull(table.byKey(mr.rKey()));
            }
        }
        // each of the ~66 earlier keys of a slot matches a new key byte 1 time in 255: 113 to 128 pairs in six runs,
        // where the generation byte matched every key with those 256, 512, 768 registrations before it (1 464 pairs)
        assertTrue(staleHits < rounds / 4, staleHits + " stale keys reached a later region");
    }

    @Test
    void shouldDrawEveryKeyByteAtRandomAndNeverTheSlotsPreviousOne()
    {
        final Set<Integer> firstKeys = new HashSet<>();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(64);
            for (int device = 0; device < 32; device++)
            {
                final int key = new MemoryRegionTable().register(pd, segment, AccessFlags.LOCAL_WRITE).rKey();
                assertEquals(1, key >>> 8, "a device's first region takes slot 1");
                firstKeys.add(key);
            }
            assertTrue(firstKeys.size() > 1, "32 devices all started at key 0x" + Integer.toHexString(
                firstKeys.iterator().next()) + " (by chance: 1 in 256^31)");

            // every slot but one taken: each registration reuses that one slot
            for (int i = 1; i < 15; i++)
            {
                table.register(pd, segment, AccessFlags.LOCAL_WRITE);
            }
            final Set<Integer> keyBytes = new HashSet<>();
            int previous = -1;
            for (int round = 0; round < 1000; round++)
            {
                final MemoryRegion mr = table.register(pd, segment, AccessFlags.LOCAL_WRITE);
                assertEquals(15, mr.rKey() >>> 8);
                assertNotEquals(previous, mr.rKey());
                previous = mr.rKey();
                keyBytes.add(mr.rKey() & 0xFF);
                table.deregister(mr);
            }
            assertTrue(keyBytes.size() > 200, "1000 draws gave only " + keyBytes.size() + " distinct key bytes");
        }
    }

    @Test
    void shouldWrapAroundToTheFreeSlotsAndGrowOnlyWhenEverySlotIsTaken()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(64);
            final MemoryRegion[] regions = new MemoryRegion[16];
            for (int slot = 1; slot < 16; slot++)
            {
                regions[slot] = table.register(pd, segment, AccessFlags.LOCAL_WRITE);
                assertEquals(slot, regions[slot].lKey() >>> 8);
            }
            table.deregister(regions[5]);
            table.deregister(regions[9]);
            assertEquals(5, table.register(pd, segment, AccessFlags.LOCAL_WRITE).lKey() >>> 8, "wrapped to slot 5");
            assertEquals(9, table.register(pd, segment, AccessFlags.LOCAL_WRITE).lKey() >>> 8, "then slot 9");
            assertEquals(16, table.register(pd, segment, AccessFlags.LOCAL_WRITE).lKey() >>> 8, "full: grown");
            for (int slot = 1; slot < 16; slot++)
            {
                if (slot != 5 && slot != 9)
                {
                    assertSame(regions[slot], table.byKey(regions[slot].lKey()));
                }
            }
        }
    }
}
