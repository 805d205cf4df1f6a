-- q1: currency conversion. Every bid with its price converted from dollars to euros.
-- result: append
CREATE TABLE ${sink} (auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra STRING)
  WITH (${with});
INSERT INTO ${sink}
SELECT auction, bidder, CAST(0.908 * price AS BIGINT) AS price, `dateTime`, extra FROM bid;
