package io.rnic.simulation;

import java.util.Locale;

/**
 * One self-contained HTML page of inline SVG charts for {@link CongestionScenario} runs: per run, the flows'
 * throughput and DCQCN rate over time, and the bottleneck's queue depth with its marking thresholds and capacity.
 * No scripts, no external files: it opens in any browser and can be checked into a report.
 */
public final class CongestionPlot
{
    private static final int WIDTH = 900;
    private static final int HEIGHT = 260;
    private static final int LEFT = 60;
    private static final int RIGHT = 20;
    private static final int TOP = 20;
    private static final int BOTTOM = 40;
    private static final String[] COLOURS = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b" };

    private CongestionPlot()
    {
    }

    public static String html(final String title, final CongestionScenario.Result... results)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(escape(title))
            .append("</title>\n<style>body{font-family:sans-serif;margin:20px;max-width:960px}" +
                "svg{background:#fff;border:1px solid #ccc;margin-bottom:8px}text{font-size:11px}" +
                "p.summary{font-family:monospace;font-size:12px}</style></head><body>\n");
        sb.append("<h1>").append(escape(title)).append("</h1>\n");
        for (final CongestionScenario.Result result : results)
        {
            sb.append("<h2>Congestion control: ").append(result.dcqcn == null ? "none" : "DCQCN")
                .append("</h2>\n<p>").append(escape(result.config.describe().replaceAll("DCQCN$|none$", "")))
                .append(result.dcqcn == null ? "none" : "DCQCN " + escape(result.dcqcn.toString())).append("</p>\n");
            sb.append("<p class=\"summary\">").append(escape(result.summary())).append("</p>\n");
            rates(sb, result);
            queue(sb, result);
        }
        sb.append("</body></html>\n");
        return sb.toString();
    }

    private static void rates(final StringBuilder sb, final CongestionScenario.Result result)
    {
        final double maxGbps = result.config.lineRateBitsPerSec / 1e9 * 1.1;
        final Axes axes = new Axes(result, maxGbps, "Gb/s");
        axes.open(sb, "throughput out of the bottleneck per flow (solid), DCQCN rate Rc of its sender (dashed)");
        for (int f = 0; f < result.config.flows; f++)
        {
            final String colour = COLOURS[f % COLOURS.length];
            final double[] throughput = new double[result.samples];
            final double[] rate = new double[result.samples];
            for (int s = 0; s < result.samples; s++)
            {
                throughput[s] = result.throughputBitsPerSec[f][s] / 1e9;
                rate[s] = result.rateBitsPerSec[f][s] < 0 ? Double.NaN : result.rateBitsPerSec[f][s] / 1e9;
            }
            axes.line(sb, throughput, colour, false);
            axes.line(sb, rate, colour, true);
            axes.legend(sb, f, "flow " + f, colour);
        }
        sb.append("</svg>\n");
    }

    private static void queue(final StringBuilder sb, final CongestionScenario.Result result)
    {
        final BottleneckQueue.Settings settings = result.config.bottleneck;
        final double capacityKb = settings.capacityBytes / 1024.0;
        final Axes axes = new Axes(result, capacityKb * 1.1, "KB");
        axes.open(sb, "bottleneck queue, deepest per sample (grey: RED thresholds; red: capacity, where it drops)");
        axes.level(sb, settings.markMinBytes / 1024.0, "#999");
        axes.level(sb, settings.markMaxBytes / 1024.0, "#999");
        axes.level(sb, capacityKb, "#d62728");
        final double[] depth = new double[result.samples];
        for (int s = 0; s < result.samples; s++)
        {
            depth[s] = result.maxQueueBytes[s] / 1024.0;
        }
        axes.line(sb, depth, "#333", false);
        sb.append("</svg>\n");
    }

    /** Maps sample index and value to the plot area; draws axes, ticks and lines. */
    private static final class Axes
    {
        private final CongestionScenario.Result result;
        private final double maxValue;
        private final String unit;
        private final double maxMs;

        Axes(final CongestionScenario.Result result, final double maxValue, final String unit)
        {
            this.result = result;
            this.maxValue = maxValue;
            this.unit = unit;
            this.maxMs = result.config.durationNs / 1e6;
        }

        double x(final double ms)
        {
            return LEFT + (WIDTH - LEFT - RIGHT) * ms / maxMs;
        }

        double y(final double value)
        {
            return TOP + (HEIGHT - TOP - BOTTOM) * (1 - Math.min(value, maxValue) / maxValue);
        }

        void open(final StringBuilder sb, final String caption)
        {
            sb.append(String.format(Locale.ROOT, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" " +
                "xmlns=\"http://www.w3.org/2000/svg\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"14\">%s</text>%n", LEFT, escape(caption)));
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>%n",
                LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM));
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>%n",
                LEFT, TOP, LEFT, HEIGHT - BOTTOM));
            for (int i = 0; i <= 4; i++)
            {
                final double value = maxValue * i / 4;
                sb.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%.1f\">%.1f %s</text>%n", y(value) + 4,
                    value, unit));
            }
            final double stepMs = niceStep(maxMs / 10);
            for (double ms = 0; ms <= maxMs + 1e-9; ms += stepMs)
            {
                sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x(ms), HEIGHT - BOTTOM + 14, ms == 0 ? "0" : trim(ms)));
            }
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (ms)</text>%n",
                (WIDTH + LEFT) / 2, HEIGHT - 6));
        }

        void level(final StringBuilder sb, final double value, final String colour)
        {
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" " +
                "stroke-dasharray=\"2,3\"/>%n", LEFT, y(value), WIDTH - RIGHT, y(value), colour));
        }

        void line(final StringBuilder sb, final double[] values, final String colour, final boolean dashed)
        {
            final StringBuilder points = new StringBuilder();
            for (int s = 0; s < values.length; s++)
            {
                if (!Double.isNaN(values[s]))
                {
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(result.timeNs[s] / 1e6), y(values[s])));
                }
            }
            if (points.length() > 0)
            {
                sb.append("<polyline fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"1.2\"")
                    .append(dashed ? " stroke-dasharray=\"5,3\"" : "").append(" points=\"").append(points)
                    .append("\"/>\n");
            }
        }

        void legend(final StringBuilder sb, final int index, final String label, final String colour)
        {
            final int x = WIDTH - RIGHT - 80;
            final int y = TOP + 12 + 14 * index;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" " +
                "stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">%s</text>%n", x, y - 4, x + 20, y - 4, colour, x + 24,
                y, escape(label)));
        }
    }

    private static double niceStep(final double raw)
    {
        final double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        final double normalized = raw / magnitude;
        return (normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10) * magnitude;
    }

    private static String trim(final double value)
    {
        return value == Math.rint(value) ? Long.toString((long)value) : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String escape(final String text)
    {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
