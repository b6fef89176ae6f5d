package dev.efferent.pairing;

import dev.efferent.assistant.Extension;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.queue.QueueException;
import dev.efferent.store.StoreException;
import dev.efferent.router.Router;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Pairing's face in the chat: {@code /pair} makes a one-time code, {@code /workers paired} lists the machines that
 * joined with one, {@code /workers revoke <name>} takes a token back. The tokens themselves are {@link Pairing}'s.
 */
public final class PairingCommands implements Extension {
    private final Pairing pairing;
    private final Router router;

    /** The commands over {@code pairing}; {@code router} says which paired machines are online. */
    public PairingCommands(Pairing pairing, Router router) {
        this.pairing = pairing;
        this.router = router;
    }

    @Override
    public Optional<List<OutgoingMessage>> command(IncomingMessage message) {
        String[] words = message.text().strip().split("\\s+");
        String command = words[0].toLowerCase(Locale.ROOT);
        if (command.equals("/pair")) {
            try {
                return Optional.of(say(words.length > 1 ? "/pair takes nothing after it: it makes a one-time code."
                        : !pairing.handsEnabled() ? "This brain runs in single-machine mode: no machine can join it. "
                        + "Start it with --hands (hands.enabled: true) first."
                        : pairMessage(pairing.newCode("chat " + message.conversation().key()))));
            } catch (QueueException | StoreException e) {
                return Optional.of(say("The brain cannot keep a pairing code right now: " + e.getMessage()));
            }
        }
        if (!command.equals("/workers") && !command.equals("/nodes") || words.length < 2) {
            return Optional.empty();
        }
        String sub = words[1].toLowerCase(Locale.ROOT);
        try {
            return switch (sub) {
                case "paired" -> Optional.of(say(pairedList()));
                case "revoke" -> {
                    if (words.length != 3) {
                        yield Optional.of(say("Usage: /workers revoke <name> — give the name of one paired machine "
                                + "(/workers paired lists them)."));
                    }
                    Pairing.Revoked r = pairing.revoke(words[2]);
                    yield Optional.of(say("Revoked the token of " + r.worker().name() + (r.disconnected()
                            ? "; it was disconnected." : "; it was not connected here.")
                            + " It cannot reconnect until it pairs again."));
                }
                default -> Optional.empty();
            };
        } catch (PairingException e) {
            return Optional.of(say(capitalize(e.getMessage()) + "."));
        } catch (QueueException | StoreException e) {
            return Optional.of(say("The brain cannot reach the paired machines right now: " + e.getMessage()));
        }
    }

    @Override
    public List<String> help() {
        return List.of("/pair — a one-time code for a machine to join without the shared secret",
                "/workers paired — the machines that joined with a code",
                "/workers revoke <name> — take a paired machine's token back and disconnect it");
    }

    /** What the chat shows for a new code. */
    private static String pairMessage(PairingCode code) {
        return "Pairing code: " + code.code() + " (works once, for " + Pairing.CODE_TTL.toMinutes() + " minutes). On "
                + "the machine to join, run:\n  " + code.command();
    }

    private String pairedList() {
        List<PairedWorker> all = pairing.workers();
        if (all.isEmpty()) {
            return "No machine joined with a pairing code yet. /pair makes one.";
        }
        Map<String, Boolean> online = new HashMap<>();
        router.workers().forEach(w -> online.put(w.id(), w.online()));
        StringBuilder out = new StringBuilder("Paired machines:");
        for (PairedWorker w : all) {
            out.append("\n• ").append(w.name()).append(" (").append(w.workerId()).append("): paired ")
                    .append(w.pairedAt()).append(online.getOrDefault(w.workerId(), false) ? ", online"
                            : w.lastConnected().map(t -> ", last connected " + t).orElse(", never connected"));
        }
        return out.toString();
    }

    private static List<OutgoingMessage> say(String text) {
        return List.of(new OutgoingMessage.Text(text));
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
    }
}
