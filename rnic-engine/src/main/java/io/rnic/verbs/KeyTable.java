package io.rnic.verbs;

import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * The objects named by the indexes of one range of the R_Key space ({@code key >>> 8}), for {@link MemoryRegionTable}
 * and {@link MemoryWindowTable}. Indexes are handed out in order through the whole range before one comes round
 * again (skipping those whose slot is taken), so that a stale key of a freed object names nothing for at least as
 * many allocations as the range has indexes; the key byte on top is the caller's. An object is stored at slot
 * {@code index & (slots - 1)} of a power-of-two array that doubles (rehashed) when half full, copy-on-write: a lookup
 * is one volatile read and an index, and the caller compares the full key.
 * <p>
 * Changes are made by one thread at a time (the owner's lock); lookups from any thread.
 */
final class KeyTable<T>
{
    private static final int INITIAL_SLOTS = 16;

    private final int firstIndex;
    private final int indexCount;
    private final int maxObjects;
    private final ToIntFunction<T> indexOf;
    private volatile Object[] slots;
    /** Indexes handed out since the start, modulo {@link #indexCount}: where the search for the next one starts. */
    private int nextOffset;
    private int size;

    /**
     * @param firstIndex the range's first index; index 0 (key 0) is never handed out.
     * @param indexCount the range's indexes, a power of two.
     * @param maxObjects how many objects the table holds at most, a power of two no greater than {@code indexCount}.
     * @param indexOf    the index an object was handed out with.
     */
    KeyTable(final int firstIndex, final int indexCount, final int maxObjects, final ToIntFunction<T> indexOf)
    {
        if (Integer.bitCount(indexCount) != 1 || Integer.bitCount(maxObjects) != 1 || maxObjects > indexCount)
        {
            throw new IllegalArgumentException("indexCount " + indexCount + ", maxObjects " + maxObjects);
        }
        this.firstIndex = firstIndex;
        this.indexCount = indexCount;
        this.maxObjects = maxObjects;
        this.indexOf = indexOf;
        this.slots = new Object[Math.min(INITIAL_SLOTS, maxObjects)];
    }

    /** How many objects the table holds at most. */
    int maxObjects()
    {
        return maxObjects;
    }

    /**
     * Hands out the next free index, makes the object for it and publishes it.
     *
     * @return the object, or null when the table holds {@link #maxObjects} already.
     */
    T add(final IntFunction<T> make)
    {
        if (size >= maxObjects)
        {
            return null;
        }
        Object[] next = slots;
        if (size >= next.length / 2 && next.length < maxObjects)
        {
            next = grown(next);
        }
        else
        {
            next = next.clone();
        }
        final int mask = next.length - 1;
        int offset = nextOffset;
        int index;
        while (true)
        {
            index = firstIndex + offset;
            offset = (offset + 1) & (indexCount - 1);
            if (index != 0 && next[index & mask] == null)
            {
                break;
            }
        }
        nextOffset = offset;
        final T object = make.apply(index);
        next[index & mask] = object;
        size++;
        slots = next;
        return object;
    }

    /** Twice as many slots, each object at its index's slot there. */
    private Object[] grown(final Object[] current)
    {
        final Object[] grown = new Object[current.length * 2];
        final int mask = grown.length - 1;
        for (final Object object : current)
        {
            if (object != null)
            {
                @SuppressWarnings("unchecked") final T typed = (T)object;
                grown[indexOf.applyAsInt(typed) & mask] = object;
            }
        }
        return grown;
    }

    /** Takes {@code object} out of the table; false when it is not there. */
    boolean remove(final T object)
    {
        final Object[] current = slots;
        final int slot = indexOf.applyAsInt(object) & (current.length - 1);
        if (current[slot] != object)
        {
            return false;
        }
        final Object[] next = current.clone();
        next[slot] = null;
        size--;
        slots = next;
        return true;
    }

    /** Whether {@code object} is in the table. */
    boolean contains(final T object)
    {
        final Object[] current = slots;
        return current[indexOf.applyAsInt(object) & (current.length - 1)] == object;
    }

    /**
     * The object in the slot of key index {@code index}, or null: it may have been handed out with another index of
     * the same slot, so the caller compares its full key. Any thread; no allocation.
     */
    @SuppressWarnings("unchecked")
    T slotOf(final int index)
    {
        final Object[] current = slots;
        return (T)current[index & (current.length - 1)];
    }

    /** The objects held now. */
    int size()
    {
        return size;
    }
}
