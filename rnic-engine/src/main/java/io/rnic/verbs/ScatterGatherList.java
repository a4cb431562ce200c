package io.rnic.verbs;

/**
 * A scatter/gather list of a work request ({@code struct ibv_sge[]}): up to {@link #MAX_SGE} entries of local
 * address, length and L_Key. Mutable and reused.
 */
public final class ScatterGatherList
{
    public static final int MAX_SGE = 16;

    final long[] addresses = new long[MAX_SGE];
    final int[] lengths = new int[MAX_SGE];
    final int[] lKeys = new int[MAX_SGE];
    int count;

    public ScatterGatherList clear()
    {
        count = 0;
        return this;
    }

    /** Appends an entry; throws {@link VerbsException} past {@link #MAX_SGE} (control of the caller's own list). */
    public ScatterGatherList add(final long address, final int length, final int lKey)
    {
        if (count == MAX_SGE)
        {
            throw new VerbsException("more than " + MAX_SGE + " scatter/gather entries");
        }
        if (length < 0)
        {
            throw new VerbsException("negative scatter/gather length " + length);
        }
        addresses[count] = address;
        lengths[count] = length;
        lKeys[count] = lKey;
        count++;
        return this;
    }

    /** Adds the whole of a memory region. */
    public ScatterGatherList add(final MemoryRegion region)
    {
        return add(region.address(), (int)Math.min(Integer.MAX_VALUE, region.length()), region.lKey());
    }

    public int count()
    {
        return count;
    }

    public long address(final int i)
    {
        return addresses[i];
    }

    public int length(final int i)
    {
        return lengths[i];
    }

    public int lKey(final int i)
    {
        return lKeys[i];
    }

    /** Sum of the entry lengths, in bytes (a long: 16 entries of 2 GiB do not fit an int). */
    public long totalLength()
    {
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            total += lengths[i];
        }
        return total;
    }

    public void copyFrom(final ScatterGatherList other)
    {
        count = other.count;
        System.arraycopy(other.addresses, 0, addresses, 0, count);
        System.arraycopy(other.lengths, 0, lengths, 0, count);
        System.arraycopy(other.lKeys, 0, lKeys, 0, count);
    }
}
