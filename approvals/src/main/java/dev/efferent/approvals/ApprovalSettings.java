package dev.efferent.approvals;

import dev.efferent.approvals.policy.Decision;
import dev.efferent.approvals.policy.Policy;
import dev.efferent.approvals.policy.PolicyException;

import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;

import java.time.Duration;
import java.util.Locale;

/**
 * The approvals' settings, from {@code approvals.*}.
 *
 * @param policy   the configured rules ({@code approvals.rules})
 * @param timeout  how long a held call waits for an answer (default 10m)
 * @param fallback what a held call gets when no one answers in time: {@link Decision#DENY} (default) or
 *                 {@link Decision#ALLOW}
 */
public record ApprovalSettings(Policy policy, Duration timeout, Decision fallback) {

    /** Reads {@code settings}. */
    public static ApprovalSettings from(Settings settings) {
        Policy policy;
        try {
            policy = Policy.parse(settings.list("rules"));
        } catch (PolicyException e) {
            throw new SettingsException("setting " + settings.describe("rules") + ": " + e.getMessage());
        }
        Duration timeout = settings.getDuration("timeout", Duration.ofMinutes(10));
        if (timeout.isNegative() || timeout.isZero()) {
            throw new SettingsException("setting " + settings.describe("timeout") + " must be positive, got " + timeout);
        }
        String fallback = settings.get("fallback").orElse("deny").strip().toLowerCase(Locale.ROOT);
        Decision decision = switch (fallback) {
            case "deny" -> Decision.DENY;
            case "allow" -> Decision.ALLOW;
            default -> throw new SettingsException("setting " + settings.describe("fallback") + " must be deny or "
                    + "allow, got '" + fallback + "'");
        };
        return new ApprovalSettings(policy, timeout, decision);
    }

    /** No rules, 10 minutes, deny. */
    public static ApprovalSettings defaults() {
        return from(Settings.empty());
    }
}
