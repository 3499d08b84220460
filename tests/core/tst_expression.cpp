// The expression language: precedence and associativity, unary minus, literals, calls, and
// every syntax error pointing at its column.
#include "core/expr/expression.h"
#include "core/expr/function_table.h"
#include "core/util/errors.h"

#include <QTest>

using namespace sparsity;

class TestExpression : public QObject {
    Q_OBJECT

private slots:
    void parses_data();
    void parses();
    void literalsAndColumns();
    void inputNames();
    void errors_data();
    void errors();
};

void TestExpression::parses_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("tree");
    QTest::newRow("precedence") << "a + b * c"
                                << "(a + (b * c))";
    QTest::newRow("left assoc -") << "a - b - c"
                                  << "((a - b) - c)";
    QTest::newRow("left assoc /") << "a / b / c"
                                  << "((a / b) / c)";
    QTest::newRow("parentheses") << "(a + b) * c"
                                 << "((a + b) * c)";
    QTest::newRow("unary minus") << "-a * -b"
                                 << "((-a) * (-b))";
    QTest::newRow("double minus") << "a - -b"
                                  << "(a - (-b))";
    QTest::newRow("issue example") << "sum(sqrt(abs(x)) * x + 1.5, 1)"
                                   << "sum(((sqrt(abs(x)) * x) + 1.5), 1)";
    QTest::newRow("nested calls") << "mm(sparse_mm(x, x), x)"
                                  << "mm(sparse_mm(x, x), x)";
    QTest::newRow("softmax") << "sum(softmax(x, 1) * w)"
                             << "sum((softmax(x, 1) * w))";
    QTest::newRow("scientific") << "x * 1e-3"
                                << "(x * 0.001)";
    QTest::newRow("spaces") << "  pow( x ,2 )  "
                            << "pow(x, 2)";
}

void TestExpression::parses()
{
    QFETCH(QString, source);
    QFETCH(QString, tree);
    QCOMPARE(QString::fromStdString(core::parseExpression(source.toStdString())->toString()), tree);
}

void TestExpression::literalsAndColumns()
{
    const auto e = core::parseExpression("x + sum(y, 1) * .5");
    QCOMPARE(e->kind, core::Expression::Kind::Binary);
    QCOMPARE(e->column, 1);
    const auto &product = *e->operands[1];
    QCOMPARE(product.column, 5);
    const auto &call = *product.operands[0];
    QCOMPARE(call.name, std::string("sum"));
    QVERIFY(call.operands[1]->integer);
    QCOMPARE(call.operands[1]->column, 12);
    QVERIFY(!product.operands[1]->integer);
    QCOMPARE(product.operands[1]->number, 0.5);
}

void TestExpression::inputNames()
{
    QCOMPARE(core::parseExpression("mm(a, b) + a * c")->inputNames(), (std::vector<std::string>{"a", "b", "c"}));
    QVERIFY(core::findFunction("log_softmax") != nullptr);
    QVERIFY(core::findFunction("magic") == nullptr);
}

void TestExpression::errors_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << ""
                           << "column 1: expected a number, a name, a call or '(', but got end of input";
    QTest::newRow("dangling operator") << "x +"
                                       << "column 4: expected a number, a name, a call or '(', but got end of input";
    QTest::newRow("unclosed call") << "sum(x, "
                                   << "column 8: expected a number";
    QTest::newRow("missing paren") << "(a + b"
                                   << "column 7: expected ')', but got end of input";
    QTest::newRow("extra paren") << "a + b)"
                                 << "column 6: expected an operator or the end, but got ')'";
    QTest::newRow("two names") << "a b"
                               << "column 3: expected an operator or the end, but got name 'b'";
    QTest::newRow("bad character") << "x ^ 2"
                                   << "column 3: unexpected character '^'";
    QTest::newRow("malformed number") << "1.2.3 + x"
                                      << "column 1: malformed number '1.2.3'";
    QTest::newRow("unknown function") << "x + frobnicate(x)"
                                      << "column 5: unknown function 'frobnicate'";
    QTest::newRow("too many arguments") << "sum(x, 1, 2)"
                                        << "column 1: sum takes 1 or 2 arguments (sum(x[, dim])), but got 3";
    QTest::newRow("too few arguments") << "2 * softmax(x)"
                                       << "column 5: softmax takes 2 arguments (softmax(x, dim)), but got 1";
    QTest::newRow("one argument") << "sqrt()"
                                  << "column 1: sqrt takes 1 argument (sqrt(x)), but got 0";
}

void TestExpression::errors()
{
    QFETCH(QString, source);
    QFETCH(QString, message);
    try {
        core::parseExpression(source.toStdString());
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        const QString text = QString::fromUtf8(error.what());
        QVERIFY2(text.startsWith(QStringLiteral("expression '") + source + "': "), error.what());
        QVERIFY2(text.contains(message), error.what());
    }
}

QTEST_GUILESS_MAIN(TestExpression)
#include "tst_expression.moc"
