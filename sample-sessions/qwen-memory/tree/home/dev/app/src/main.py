import csv, sys


def loadOrders(fileName):
    f = open(fileName)
    rows = list(csv.DictReader(f))
    f.close()
    return rows


def totalByCustomer(orders):
    totals = {}
    for o in orders:
        try:
            totals[o["customer"]] = totals.get(o["customer"], 0) + float(o["amount"])
        except:
            print("bad row", o)
    return totals


if __name__ == "__main__":
    orders = loadOrders(sys.argv[1] if len(sys.argv) > 1 else "data/orders.csv")
    for name, amount in sorted(totalByCustomer(orders).items()):
        print(name, round(amount, 2))
