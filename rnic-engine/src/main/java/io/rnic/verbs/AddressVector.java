package io.rnic.verbs;

/**
 * Where a QP's packets go ({@code struct ibv_ah_attr} with its GRH, for RoCEv2): destination GID (IPv6, or
 * IPv4-mapped {@code ::ffff:a.b.c.d}), source GID index, hop limit, traffic class (DSCP + ECN), flow label, service
 * level (the 802.1Q PCP when tagged) and the destination MAC resolved for the GID. Mutable, copied on modifyQp.
 */
public final class AddressVector
{
    private long dgidHigh;
    private long dgidLow;
    private int sgidIndex;
    private int hopLimit = 64;
    private int trafficClass;
    private int flowLabel;
    private int serviceLevel;
    private long destinationMac;

    public AddressVector destinationGid(final long high, final long low)
    {
        this.dgidHigh = high;
        this.dgidLow = low;
        return this;
    }

    /** Sets the destination GID to the IPv4-mapped {@code ::ffff:a.b.c.d}. */
    public AddressVector destinationIpv4(final int address)
    {
        this.dgidHigh = 0;
        this.dgidLow = 0x0000_FFFF_0000_0000L | (address & 0xFFFF_FFFFL);
        return this;
    }

    public AddressVector sourceGidIndex(final int index)
    {
        this.sgidIndex = index;
        return this;
    }

    public AddressVector hopLimit(final int hopLimit)
    {
        this.hopLimit = hopLimit;
        return this;
    }

    public AddressVector trafficClass(final int trafficClass)
    {
        this.trafficClass = trafficClass;
        return this;
    }

    public AddressVector flowLabel(final int flowLabel)
    {
        this.flowLabel = flowLabel;
        return this;
    }

    public AddressVector serviceLevel(final int serviceLevel)
    {
        this.serviceLevel = serviceLevel;
        return this;
    }

    public AddressVector destinationMac(final long mac)
    {
        this.destinationMac = mac;
        return this;
    }

    public long destinationGidHigh()
    {
        return dgidHigh;
    }

    public long destinationGidLow()
    {
        return dgidLow;
    }

    /** Whether the destination GID is IPv4-mapped, i.e. the packets are RoCEv2 over IPv4. */
    public boolean isIpv4()
    {
        return dgidHigh == 0 && (dgidLow >>> 32) == 0xFFFF;
    }

    public int destinationIpv4()
    {
        return (int)dgidLow;
    }

    public int sourceGidIndex()
    {
        return sgidIndex;
    }

    public int hopLimit()
    {
        return hopLimit;
    }

    public int trafficClass()
    {
        return trafficClass;
    }

    public int flowLabel()
    {
        return flowLabel;
    }

    public int serviceLevel()
    {
        return serviceLevel;
    }

    public long destinationMac()
    {
        return destinationMac;
    }

    /** Problems with the fields' ranges, or null. */
    String validate()
    {
        if (hopLimit < 0 || hopLimit > 255)
        {
            return "hop limit " + hopLimit + " out of range 0..255";
        }
        if (trafficClass < 0 || trafficClass > 255)
        {
            return "traffic class " + trafficClass + " out of range 0..255";
        }
        if ((flowLabel & ~0xF_FFFF) != 0)
        {
            return "flow label 0x" + Integer.toHexString(flowLabel) + " is wider than 20 bits";
        }
        if (serviceLevel < 0 || serviceLevel > 7)
        {
            return "service level " + serviceLevel + " out of range 0..7 (it is the 802.1Q priority on RoCE)";
        }
        if (sgidIndex < 0)
        {
            return "negative source GID index " + sgidIndex;
        }
        if (dgidHigh == 0 && dgidLow == 0)
        {
            return "destination GID is :: (unset)";
        }
        return null;
    }

    public AddressVector copyFrom(final AddressVector other)
    {
        dgidHigh = other.dgidHigh;
        dgidLow = other.dgidLow;
        sgidIndex = other.sgidIndex;
        hopLimit = other.hopLimit;
        trafficClass = other.trafficClass;
        flowLabel = other.flowLabel;
        serviceLevel = other.serviceLevel;
        destinationMac = other.destinationMac;
        return this;
    }
}
