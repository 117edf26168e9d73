"""The built-in suite's AWS adapters of their own module: the DynamoDB calendar (its bookings and
series) and mailbox, and the SES mailer. Smaller DynamoDB/SQS adapters stay beside their contract.
"""
