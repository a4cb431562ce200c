package io.rnic.verbs;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The index walk of the R_Key tables, on ranges small enough to walk round. */
class KeyTableTest
{
    /** An object holding the index it was handed out with. */
    private record Named(int index)
    {
    }

    private static KeyTable<Named> table(final int firstIndex, final int indexCount, final int maxObjects)
    {
        return new KeyTable<>(firstIndex, indexCount, maxObjects, Named::index);
    }

    @Test
    void shouldHandOutEveryIndexOfTheRangeBeforeOneComesRoundAgainButNeverIndexZero()
    {
        final KeyTable<Named> table = table(0, 64, 16);
        final List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < 2 * 63; i++)
        {
            final Named named = table.add(Named::new);
            indexes.add(named.index());
            assertTrue(table.remove(named));
        }
        for (int i = 0; i < 63; i++)
        {
            assertEquals(i + 1, indexes.get(i));
            assertEquals(i + 1, indexes.get(63 + i), "the second walk, from 1 again");
        }
    }

    @Test
    void shouldSkipAnIndexWhoseSlotIsTakenAndFindEachObjectByItsOwnIndex()
    {
        final KeyTable<Named> table = table(64, 64, 4);
        final Named first = table.add(Named::new); // 64, slot 0 of 4
        final Named kept = table.add(Named::new); // 65, slot 1 of 4
        assertEquals(64, first.index());
        assertEquals(65, kept.index());
        table.remove(first);
        table.remove(table.add(Named::new)); // 66
        table.remove(table.add(Named::new)); // 67
        assertEquals(68, table.add(Named::new).index(), "slot 0");
        assertEquals(70, table.add(Named::new).index(), "69 skipped: its slot 1 holds 65");
        assertSame(kept, table.slotOf(65));
        assertFalse(table.slotOf(69) == null, "69 shares 65's slot: the caller compares keys");
        assertEquals(3, table.size());
    }

    @Test
    void shouldRefuseOnceFullAndGrowOnlyUpToItsMaximum()
    {
        final KeyTable<Named> table = table(0, 1 << 10, 64);
        final List<Named> all = new ArrayList<>();
        for (int i = 0; i < 64; i++)
        {
            all.add(table.add(Named::new));
        }
        assertNull(table.add(Named::new), "64 of 64");
        for (final Named named : all)
        {
            assertSame(named, table.slotOf(named.index()));
            assertTrue(table.contains(named));
        }
        table.remove(all.get(10));
        assertEquals(all.get(10).index(), table.add(Named::new).index() - 64, "the next free slot, an index later");
    }
}
