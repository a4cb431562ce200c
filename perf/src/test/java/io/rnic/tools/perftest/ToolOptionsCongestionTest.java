package io.rnic.tools.perftest;

import io.rnic.cc.DcqcnParameters;
import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --cc} and {@code --cc-param}: parsed into DCQCN parameters, clear usage errors. */
class ToolOptionsCongestionTest
{
    @Test
    void shouldBeOffByDefault()
    {
        assertNull(ToolOptions.parse(ToolKind.WRITE_BW, new String[0]).congestionControl);
        assertNull(ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "--cc", "none" }).congestionControl);
    }

    @Test
    void shouldApplyEachParameterToTheConnectXDefaults()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "--cc", "dcqcn",
            "--cc-param", "lineRateBitsPerSec=25_000_000_000", "--cc-param=g=1/256", "--cc-param", "cnpIntervalNs=4000" });
        final DcqcnParameters p = options.congestionControl;
        assertEquals(25_000_000_000L, p.lineRateBitsPerSec());
        assertEquals(1.0 / 256, p.g());
        assertEquals(4_000, p.cnpIntervalNs());
        assertEquals(DcqcnParameters.connectX().rateIncreasePeriodNs(), p.rateIncreasePeriodNs());
    }

    @Test
    void shouldExplainMistakes()
    {
        assertMessage("--cc takes dcqcn|none, not 'dctcp'", "--cc", "dctcp");
        assertMessage("--cc-param applies to --cc dcqcn", "--cc-param", "g=0.5");
        assertMessage("known names: g, alphaUpdatePeriodNs", "--cc", "dcqcn", "--cc-param", "alpha=1");
        assertMessage("--cc-param lineRateBitsPerSec=10G: expected a plain whole number", "--cc", "dcqcn",
            "--cc-param", "lineRateBitsPerSec=10G");
        assertMessage("minDecreasePercent must be in [1, 100], was 0", "--cc", "dcqcn", "--cc-param",
            "minDecreasePercent=0");
        assertMessage("--cc-param needs a value: --cc-param NAME=VALUE", "--cc", "dcqcn", "--cc-param");
    }

    private static void assertMessage(final String expected, final String... args)
    {
        final UsageException ex = assertThrows(UsageException.class, () -> ToolOptions.parse(ToolKind.WRITE_BW, args));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
