package io.rnic.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DcqcnParametersTest
{
    @Test
    void shouldUseConnectXFirmwareDefaultsAsProductDefault()
    {
        final DcqcnParameters p = DcqcnParameters.defaults();
        assertEquals(1019.0 / 1024.0, p.g());
        assertEquals(300_000, p.rateIncreasePeriodNs());
        assertEquals(32_767, p.byteCounterBytes());
        assertEquals(1, p.fastRecoveryThreshold());
        assertEquals(5_000_000, p.additiveIncreaseBitsPerSec());
        assertEquals(50_000_000, p.hyperIncreaseBitsPerSec());
        assertEquals(1_000_000, p.minRateBitsPerSec());
        assertEquals(50, p.minDecreasePercent());
        assertEquals(50_000, p.cnpIntervalNs());
        assertEquals(DcqcnParameters.connectX().toString(), p.toString());
    }

    @Test
    void shouldProvideThePaperSet()
    {
        final DcqcnParameters p = DcqcnParameters.paper();
        assertEquals(1.0 / 256, p.g());
        assertEquals(55_000, p.alphaUpdatePeriodNs());
        assertEquals(55_000, p.rateIncreasePeriodNs());
        assertEquals(10_000_000, p.byteCounterBytes());
        assertEquals(5, p.fastRecoveryThreshold());
        assertEquals(40_000_000, p.additiveIncreaseBitsPerSec());
        assertEquals(200_000_000, p.hyperIncreaseBitsPerSec());
        assertEquals(40_000_000_000L, p.lineRateBitsPerSec());
        assertEquals(50_000, p.cnpIntervalNs());
    }

    @Test
    void shouldParseOverridesWithTheUnitInTheName()
    {
        final DcqcnParameters base = DcqcnParameters.connectX();
        final DcqcnParameters p = base
            .with("additiveIncreaseBitsPerSec", "40_000_000")
            .with("rateIncreasePeriodNs=55000")
            .with(" byteCounterBytes = 0 ")
            .with("g", "1/256")
            .with("fastRecoveryThreshold", "5")
            .with("lineRateBitsPerSec", "25000000000")
            .with("cnpIntervalNs", "0");
        assertEquals(40_000_000, p.additiveIncreaseBitsPerSec());
        assertEquals(55_000, p.rateIncreasePeriodNs());
        assertEquals(0, p.byteCounterBytes());
        assertEquals(1.0 / 256, p.g());
        assertEquals(5, p.fastRecoveryThreshold());
        assertEquals(25_000_000_000L, p.lineRateBitsPerSec());
        assertEquals(0, p.cnpIntervalNs());
        assertEquals(0.00390625, base.with("g", "0.00390625").g());
        assertEquals(5_000_000, base.additiveIncreaseBitsPerSec(), "the original is unchanged");
        for (final String name : DcqcnParameters.KNOWN_NAMES.split(", "))
        {
            final String value = name.equals("g") ? "1/2" : name.endsWith("Percent") ? "60" :
                name.equals("fastRecoveryThreshold") ? "3" : name.startsWith("lineRate") ? "60000000" : "2000000";
            final DcqcnParameters changed = base.with(name + "=" + value);
            assertTrue(changed.toString().contains(name + "=" + (name.equals("g") ? "0.5" : value)), name);
        }
    }

    @Test
    void shouldRejectUnknownNamesListingTheKnownOnes()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> DcqcnParameters.defaults().with("rai", "40000000"));
        assertTrue(ex.getMessage().contains("unknown cc-param 'rai'"), ex.getMessage());
        assertTrue(ex.getMessage().contains(DcqcnParameters.KNOWN_NAMES), ex.getMessage());
        final IllegalArgumentException noEquals = assertThrows(IllegalArgumentException.class,
            () -> DcqcnParameters.defaults().with("additiveIncreaseBitsPerSec"));
        assertTrue(noEquals.getMessage().contains("NAME=VALUE"), noEquals.getMessage());
    }

    @Test
    void shouldRejectValuesThatAreNotPlainNumbers()
    {
        for (final String value : new String[] { "40mbps", "40M", "-1", "", "4e7", "0x10", "99999999999999999999" })
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> DcqcnParameters.defaults().with("additiveIncreaseBitsPerSec", value), value);
            assertTrue(ex.getMessage().startsWith("cc-param additiveIncreaseBitsPerSec=" + value), ex.getMessage());
        }
        final IllegalArgumentException fraction = assertThrows(IllegalArgumentException.class,
            () -> DcqcnParameters.defaults().with("g", "a/b"));
        assertTrue(fraction.getMessage().contains("ratio (1/256)"), fraction.getMessage());
    }

    @Test
    void shouldRejectValuesOutOfRangeNamingTheParameterAndTheRange()
    {
        final DcqcnParameters p = DcqcnParameters.defaults();
        assertMessage("g must be in (0, 1], was 0.0", () -> p.with("g", "0"));
        assertMessage("g must be in (0, 1], was 2.0", () -> p.with("g", "2/1"));
        assertMessage("g must be in (0, 1], was Infinity", () -> p.with("g", "1/0"));
        assertMessage("g must be in (0, 1], was NaN", () -> p.with("g", "0/0"));
        assertMessage("rateIncreasePeriodNs must be in [1000, 10000000000], was 999",
            () -> p.with("rateIncreasePeriodNs", "999"));
        assertMessage("byteCounterBytes (0 disables it) must be in [1024, 1099511627776], was 100",
            () -> p.with("byteCounterBytes", "100"));
        assertMessage("minRateBitsPerSec must be in [1000, lineRateBitsPerSec=500000], was 1000000",
            () -> p.with("lineRateBitsPerSec", "500000"));
        assertMessage("additiveIncreaseBitsPerSec must be in [1, lineRateBitsPerSec=100000000000], was 0",
            () -> p.with("additiveIncreaseBitsPerSec", "0"));
        assertMessage("minDecreasePercent must be in [1, 100], was 0", () -> p.with("minDecreasePercent", "0"));
        assertMessage("minDecreasePercent must be in [1, 100], was 101", () -> p.with("minDecreasePercent", "101"));
        assertMessage("fastRecoveryThreshold must be in [0, 1000000], was 1000001",
            () -> p.with("fastRecoveryThreshold", "1000001"));
        assertMessage("lineRateBitsPerSec must be in [1000, 10000000000000], was 20000000000000",
            () -> p.with("lineRateBitsPerSec", "20000000000000"));
        assertMessage("cnpIntervalNs must be in [0, 10000000000], was -1", () -> new DcqcnParameters(
            0.5, 55_000, 55_000, 0, 5, 1, 1, 1_000, 1_000, 50, -1));
    }

    private static void assertMessage(final String expected, final Runnable runnable)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, runnable::run);
        assertEquals(expected, ex.getMessage());
    }
}
