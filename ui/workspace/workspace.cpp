#include "ui/workspace/workspace.h"

#include "core/pipeline/batch_recipe.h"
#include "core/util/json_fields.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <algorithm>
#include <cmath>
#include <fstream>

namespace sparsity::ui {
namespace {

std::string text(const QString &s) { return s.toStdString(); }
QString qtext(const std::string &s) { return QString::fromStdString(s); }

} // namespace

std::string workspaceJson(const Workspace &w)
{
    nlohmann::ordered_json root{{"version", 1}};
    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    for (const auto &file : w.files)
        files.push_back(text(QFileInfo(file).absoluteFilePath()));
    root["files"] = files;
    if (!w.currentFile.isEmpty()) {
        root["current"] = {{"file", text(QFileInfo(w.currentFile).absoluteFilePath())}, {"element", text(w.currentElement)}};
        if (!w.slice.empty())
            root["current"]["slice"] = w.slice;
        const auto &sel = w.selection;
        if (sel.kind == ElementSelection::Kind::Rectangle)
            root["current"]["selection"] = {{"rectangle", {sel.row0, sel.row1, sel.col0, sel.col1}}};
        else if (sel.kind == ElementSelection::Kind::ValueRange)
            root["current"]["selection"] = {{"value_range", {sel.lo, sel.hi}}};
        else if (sel.kind == ElementSelection::Kind::FlatRange)
            root["current"]["selection"] = {{"elements", {sel.first, sel.last}}};
    }
    if (w.sparsifier)
        root["sparsifier"] = core::sparsifierJson(*w.sparsifier);
    if (!w.datasetSparsifiers.empty()) {
        std::map<std::string, core::SparsifierConfig> perDataset;
        for (const auto &[dataset, config] : w.datasetSparsifiers)
            perDataset[text(dataset)] = config;
        root["dataset_sparsifiers"] = core::perDatasetJson(perDataset);
    }
    nlohmann::ordered_json datasets = nlohmann::ordered_json::array();
    for (const auto &dataset : w.exportSettings.datasets)
        datasets.push_back(text(dataset));
    root["export"] = {{"datasets", datasets}, {"layout", text(w.exportSettings.layout)}, {"gzip", w.exportSettings.gzipLevel}};
    if (w.optimizer) {
        const auto &o = *w.optimizer;
        nlohmann::ordered_json semantics = nlohmann::ordered_json::array(), grads = nlohmann::ordered_json::array();
        for (const auto s : o.semantics)
            semantics.push_back(core::semanticsName(s));
        for (const auto &g : o.gradients)
            grads.push_back(text(g));
        root["optimizer"] = {{"optimizer", core::optimizerName(o.kind)},
                             {"rule", core::ruleName(o.rule)},
                             {"device", core::deviceName(o.device)},
                             {"lr", o.hyperparameters.lr.value_or(0.1)},
                             {"weight_decay", o.hyperparameters.weightDecay.value_or(0.0)},
                             {"momentum", o.hyperparameters.momentum.value_or(0.0)},
                             {"semantics", semantics},
                             {"grads", grads},
                             {"mask", text(o.mask)}};
        // Empty fields (the rule's defaults) are left out, and so is text that is not a number yet.
        for (const auto &[key, value] : {std::pair{"beta1", o.hyperparameters.beta1}, std::pair{"beta2", o.hyperparameters.beta2},
                                         std::pair{"eps", o.hyperparameters.eps}})
            if (value && std::isfinite(*value))
                root["optimizer"][key] = *value;
    }
    if (w.gradcheck) {
        const auto &g = *w.gradcheck;
        nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
        for (auto it = g.inputs.begin(); it != g.inputs.end(); ++it)
            inputs[text(it.key())] = {{"file", text(QFileInfo(it.value().file).absoluteFilePath())},
                                      {"path", text(it.value().path)}};
        root["gradcheck"] = {{"expression", text(g.expression)},
                             {"inputs", inputs},
                             {"masked", g.options.masked},
                             {"fast", g.options.fast},
                             {"eps", g.options.eps}};
    }
    root["window"] = {{"geometry", w.windowGeometry.toBase64().toStdString()}, {"state", w.windowState.toBase64().toStdString()}};
    return root.dump(2) + "\n";
}

void saveWorkspace(const Workspace &w, const QString &path)
{
    const std::string json = workspaceJson(w);
    // QSaveFile writes a temporary file and renames it over the target on commit.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(json.data(), static_cast<qint64>(json.size())) < 0 || !file.commit())
        throw core::IoError(text(path) + ": cannot write the workspace: " + text(file.errorString()));
}

Workspace loadWorkspace(const QString &path)
{
    const std::string name = text(path);
    std::ifstream in(name);
    if (!in)
        throw core::IoError(name + ": cannot open the workspace");
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error &error) {
        throw core::InputError(name + ": not a JSON file: " + error.what());
    }
    const QDir folder = QFileInfo(path).absoluteDir();
    const auto resolve = [&folder](const std::string &p) { return QDir::cleanPath(folder.absoluteFilePath(qtext(p))); };

    Workspace w;
    core::Fields f(root, "$", name);
    const auto version = f.integer("version");
    if (version != 1)
        f.fail("$.version", "must be 1", version ? "got " + std::to_string(*version) : "it is missing");
    for (const auto &file : f.strings("files"))
        w.files << resolve(file);
    if (auto current = f.object("current")) {
        w.currentFile = resolve(*current->string("file", true));
        w.currentElement = qtext(*current->string("element", true));
        if (const auto *slice = current->get("slice", false)) {
            if (!slice->is_array()
                || !std::all_of(slice->begin(), slice->end(), [](const auto &i) { return i.is_number_integer() && i >= 0; }))
                current->fail("$.current.slice", "must be an array of indices >= 0", "got " + slice->dump());
            w.slice = slice->get<std::vector<std::int64_t>>();
        }
        if (auto selection = current->object("selection")) {
            const auto numbers = [&](const char *key, std::size_t count) -> std::optional<std::vector<double>> {
                const auto *v = selection->get(key, false);
                if (!v)
                    return std::nullopt;
                if (!v->is_array() || v->size() != count
                    || !std::all_of(v->begin(), v->end(), [](const auto &x) { return x.is_number(); }))
                    selection->fail(std::string("$.current.selection.") + key,
                                    "must be an array of " + std::to_string(count) + " numbers", "got " + v->dump());
                return v->get<std::vector<double>>();
            };
            const auto index = [](double x) { return static_cast<std::int64_t>(x); };
            if (const auto r = numbers("rectangle", 4))
                w.selection = ElementSelection::rectangle(index((*r)[0]), index((*r)[1]), index((*r)[2]), index((*r)[3]));
            else if (const auto v = numbers("value_range", 2))
                w.selection = ElementSelection::valueRange((*v)[0], (*v)[1]);
            else if (const auto e = numbers("elements", 2))
                w.selection = ElementSelection::flatRange(index((*e)[0]), index((*e)[1]));
            selection->rejectUnknown();
        }
        current->rejectUnknown();
    }
    if (const auto *sparsifier = f.get("sparsifier", false))
        w.sparsifier = core::parseSparsifierJson(*sparsifier, name, "$.sparsifier");
    if (const auto *perDataset = f.get("dataset_sparsifiers", false))
        for (const auto &[dataset, config] : core::parsePerDatasetJson(*perDataset, name, "$.dataset_sparsifiers"))
            w.datasetSparsifiers[qtext(dataset)] = config;
    if (auto settings = f.object("export")) {
        for (const auto &dataset : settings->strings("datasets"))
            w.exportSettings.datasets << qtext(dataset);
        w.exportSettings.layout = qtext(settings->string("layout").value_or("dense"));
        if (w.exportSettings.layout != QStringLiteral("masked") && !core::parseLayout(text(w.exportSettings.layout)))
            settings->fail("$.export.layout", "must be dense, masked, coo, csr, csc or row_sparse",
                           "got '" + text(w.exportSettings.layout) + "'");
        const auto gzip = settings->integer("gzip").value_or(0);
        if (gzip < 0 || gzip > 9)
            settings->fail("$.export.gzip", "must be a gzip level from 0 to 9", "got " + std::to_string(gzip));
        w.exportSettings.gzipLevel = static_cast<int>(gzip);
        settings->rejectUnknown();
    }
    if (auto o = f.object("optimizer")) {
        OptimizerRequest r;
        const auto named = [&](const char *key, auto parse) {
            const auto value = o->string(key, true);
            try {
                return parse(*value);
            } catch (const core::InputError &error) {
                throw core::InputError(name + ": $.optimizer." + key + ": " + error.what());
            }
        };
        r.kind = named("optimizer", [](const std::string &v) { return core::parseOptimizer(v); });
        r.rule = named("rule", [](const std::string &v) { return core::parseRule(v); });
        const auto device = o->string("device").value_or("cpu");
        if (device != "cpu" && device != "cuda")
            o->fail("$.optimizer.device", "must be cpu or cuda", "got '" + device + "'");
        r.device = device == "cuda" ? core::Device::Cuda : core::Device::Cpu;
        r.hyperparameters.lr = o->number("lr");
        r.hyperparameters.weightDecay = o->number("weight_decay");
        r.hyperparameters.momentum = o->number("momentum");
        r.hyperparameters.beta1 = o->number("beta1");
        r.hyperparameters.beta2 = o->number("beta2");
        r.hyperparameters.eps = o->number("eps");
        for (const auto &s : o->strings("semantics")) {
            try {
                r.semantics.push_back(core::parseSemantics(s));
            } catch (const core::InputError &error) {
                throw core::InputError(name + ": $.optimizer.semantics: " + error.what());
            }
        }
        for (const auto &g : o->strings("grads"))
            r.gradients << qtext(g);
        r.mask = qtext(o->string("mask").value_or(""));
        o->rejectUnknown();
        w.optimizer = r;
    }
    if (auto g = f.object("gradcheck")) {
        GradcheckPanelRequest r;
        r.expression = qtext(*g->string("expression", true));
        if (auto inputs = g->object("inputs")) {
            for (const auto &[inputName, value] : root["gradcheck"]["inputs"].items()) {
                auto input = inputs->object(inputName);
                r.inputs[qtext(inputName)] =
                    ElementRef{resolve(*input->string("file", true)), qtext(*input->string("path", true))};
                input->rejectUnknown();
            }
        }
        r.options.masked = g->boolean("masked");
        r.options.fast = g->boolean("fast");
        r.options.eps = g->number("eps").value_or(r.options.eps);
        if (!(r.options.eps > 0.0))
            g->fail("$.gradcheck.eps", "must be a number > 0", "got " + std::to_string(r.options.eps));
        g->rejectUnknown();
        w.gradcheck = r;
    }
    if (auto window = f.object("window")) {
        w.windowGeometry = QByteArray::fromBase64(QByteArray::fromStdString(window->string("geometry").value_or("")));
        w.windowState = QByteArray::fromBase64(QByteArray::fromStdString(window->string("state").value_or("")));
        window->rejectUnknown();
    }
    f.rejectUnknown();
    return w;
}

bool isWorkspacePath(const QString &path) { return path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive); }

} // namespace sparsity::ui
