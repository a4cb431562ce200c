package io.rnic.status;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

/**
 * The counters of one kind and one instance (an engine's transport counters, a port's), allocated together in a
 * {@link CountersManager} and addressed by index. The one thread that owns them writes each with a plain read and a
 * release store into the values buffer (no allocation, no atomic instruction); any thread reads them with a
 * volatile load, without the owner's help.
 * <p>
 * The records are contiguous, so an index is an offset from the first one: no per-counter object on the hot path.
 * A block can move to another manager before its writer starts ({@link #moveTo}): a port counts in a manager of its
 * own until an endpoint adopts it.
 */
public final class CounterBlock
{
    private final int typeId;
    private final String[] labels;
    private CountersManager manager;
    private AtomicBuffer values;
    private int firstId;
    private int firstOffset;
    private int instance;

    /**
     * @param labels one per counter, by index; each record's label is {@code prefix + label}.
     */
    public CounterBlock(
        final CountersManager manager, final int typeId, final int instance, final String prefix, final String[] labels)
    {
        this.typeId = typeId;
        this.labels = labels.clone();
        allocate(manager, instance, prefix);
    }

    /** A block in a manager of its own, sized for it: for a part made without an endpoint. */
    public static CounterBlock standalone(final int typeId, final String prefix, final String[] labels)
    {
        return new CounterBlock(CounterTypes.newManager(labels.length), typeId, 0, prefix, labels);
    }

    private void allocate(final CountersManager manager, final int instance, final String prefix)
    {
        int first = CountersReader.NULL_COUNTER_ID;
        for (int i = 0; i < labels.length; i++)
        {
            final int index = i;
            final int id = manager.allocate(prefix + labels[i], typeId, (key) ->
            {
                key.putInt(CounterTypes.KEY_INDEX_OFFSET, index);
                key.putInt(CounterTypes.KEY_INSTANCE_OFFSET, instance);
            });
            if (i == 0)
            {
                first = id;
            }
            else if (id != first + i)
            {
                throw new IllegalStateException("counters of type " + typeId + " not contiguous: " + id + " after " +
                    (first + i - 1));
            }
        }
        this.manager = manager;
        this.values = manager.valuesBuffer();
        this.firstId = first;
        this.firstOffset = CountersReader.counterOffset(first);
        this.instance = instance;
    }

    /**
     * Re-allocates the block in {@code target} as instance {@code newInstance}, carrying the values over, and frees
     * the old records. Only before the writer's thread starts, or on it.
     */
    public void moveTo(final CountersManager target, final int newInstance, final String prefix)
    {
        final CountersManager old = manager;
        final long[] carried = new long[labels.length];
        for (int i = 0; i < carried.length; i++)
        {
            carried[i] = get(i);
        }
        final int oldFirst = firstId;
        allocate(target, newInstance, prefix);
        for (int i = 0; i < carried.length; i++)
        {
            values.putLongRelease(firstOffset + i * CountersReader.COUNTER_LENGTH, carried[i]);
        }
        for (int i = 0; i < carried.length; i++)
        {
            old.free(oldFirst + i);
        }
    }

    public void increment(final int index)
    {
        add(index, 1);
    }

    /** Owner thread only. */
    public void add(final int index, final long delta)
    {
        final int offset = firstOffset + index * CountersReader.COUNTER_LENGTH;
        values.putLongRelease(offset, values.getLong(offset) + delta);
    }

    /** Owner thread only: for a count the owner samples from elsewhere (the kernel's, a device's). */
    public void set(final int index, final long value)
    {
        values.putLongRelease(firstOffset + index * CountersReader.COUNTER_LENGTH, value);
    }

    /** Any thread. */
    public long get(final int index)
    {
        return values.getLongVolatile(firstOffset + index * CountersReader.COUNTER_LENGTH);
    }

    /** Owner thread only, while nothing else writes (a test reusing a validator). */
    public void reset()
    {
        for (int i = 0; i < labels.length; i++)
        {
            set(i, 0);
        }
    }

    public int size()
    {
        return labels.length;
    }

    public String label(final int index)
    {
        return labels[index];
    }

    public int instance()
    {
        return instance;
    }

    /** The manager the block lives in, for a reader of all of them. */
    public CountersReader reader()
    {
        return manager;
    }
}
