/**
 * For tests and benchmarks only: {@link dev.efferent.model.scripted.ScriptedModelServer}, a model server on loopback
 * that speaks the OpenAI and Anthropic protocols, answers from a script and records what it received. No
 * deployment puts it on a module path.
 */
module efferent.model.scripted {
    requires jdk.httpserver;
    requires transitive com.fasterxml.jackson.databind;

    exports dev.efferent.model.scripted;
}
