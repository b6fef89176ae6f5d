package dev.efferent.core.tools;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.Toolkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A toolkit whose tools a test changes while it is in use, telling its listener as a real one would. */
final class ChangingToolkit implements Toolkit {
    /** The tools it offers now; change them, then call {@link #changed()}. */
    final List<Tool> offered;
    private Runnable listener = () -> { };

    ChangingToolkit(Tool... tools) {
        this.offered = new CopyOnWriteArrayList<>(List.of(tools));
    }

    @Override
    public String name() {
        return "changing";
    }

    @Override
    public List<Tool> tools() {
        return List.copyOf(offered);
    }

    @Override
    public void onChange(Runnable listener) {
        this.listener = listener;
    }

    /** Says that the tools changed. */
    void changed() {
        listener.run();
    }
}
